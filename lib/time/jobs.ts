import { defineJob, type Job } from '../events/index.js';
import { queueTimeSync, TIME_SYNC_JOB } from './sync.js';

/** The background jobs of time tracking (lib/events/jobs.ts): an entry's push to the time-booking endpoint. */
export const timeJobs: readonly Job[] = [defineJob(TIME_SYNC_JOB, queueTimeSync)];
