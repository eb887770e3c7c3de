import { defineJob, type Job } from '../events/index.js';
import { clearDeletedMilestone, MILESTONE_CLEARING_JOB } from './milestones.js';

/** The background jobs of milestones (lib/events/jobs.ts): a deleted milestone cleared from its tickets. */
export const milestoneJobs: readonly Job[] = [defineJob(MILESTONE_CLEARING_JOB, clearDeletedMilestone)];
