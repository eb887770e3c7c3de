/** Public face of time tracking for other domains: they reach it only through this file. */
export { createEntry, decideEntry } from './entries.js';
export { listEntries } from './reports.js';
export { entryDescription, entryDurationMinutes } from './shapes.js';
