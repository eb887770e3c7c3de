/** Public face of time tracking for other domains: they reach it only through this file. */
export { createEntry, decideEntry } from './entries.js';
export { listEntries } from './reports.js';
export { entryDescription, entryDurationMinutes } from './shapes.js';
export { timeJobs } from './jobs.js';
export { TIME_SYNC_KIND, timeSyncDeliveries } from './sync.js';
export { decideEntryOp, logTimeOp } from './operations.js';
