/** Public face of the milestones domain for other domains: they reach it only through this file. */
export { enterFeatureBoard, milestonesOf, clearDeletedMilestone, MILESTONE_CLEARING_JOB } from './milestones.js';
