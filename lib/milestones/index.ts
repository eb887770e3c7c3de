/** Public face of the milestones domain for other domains: they reach it only through this file. */
export { enterFeatureBoard, milestonesOf } from './milestones.js';
export { milestoneJobs } from './jobs.js';
