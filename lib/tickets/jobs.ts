import { defineJob, type Job } from '../events/index.js';
import { LOST_ASSIGNEES_JOB } from '../boards/index.js';
import { RECATEGORIZE_JOB } from '../statuses/index.js';
import { propagateReadiness } from './dependencies/propagate.js';
import { READINESS_JOB } from './record/readiness.js';
import { flagLostAssigneesStep } from './lists/bulk.js';
import { recategorizeStep } from './lists/recategorize.js';
import { RETYPE_JOB, retypeStep } from './lists/retype.js';
import { SEARCH_INDEX_JOB } from './search/pending.js';
import { runSearchIndexJob } from './search/indexer.js';

/**
 * The background jobs the tickets domain runs (lib/events/jobs.ts): readiness carried to
 * dependents and parents, the search index, a deleted type's tickets retyped, a status's
 * tickets recategorized, lost assignees flagged. The last two are enqueued by the statuses and
 * boards domains, which declare their kinds (they never import tickets).
 */
export const ticketJobs: readonly Job[] = [
  defineJob(READINESS_JOB, propagateReadiness),
  defineJob(SEARCH_INDEX_JOB, runSearchIndexJob),
  defineJob(RETYPE_JOB, retypeStep),
  defineJob(RECATEGORIZE_JOB, recategorizeStep),
  defineJob(LOST_ASSIGNEES_JOB, flagLostAssigneesStep),
];
