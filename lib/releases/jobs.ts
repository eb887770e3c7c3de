import { defineJob, type Job } from '../events/index.js';
import { detachDeletedRelease, RELEASE_DETACHING_JOB } from './releases.js';

/** The background jobs of releases (lib/events/jobs.ts): a deleted release's tickets detached, then the release removed. */
export const releaseJobs: readonly Job[] = [defineJob(RELEASE_DETACHING_JOB, detachDeletedRelease)];
