/** Public face of time tracking for other domains: they reach it only through this file. */
export { createEntry } from './entries.js';
export { entryDescription, entryDurationMinutes } from './shapes.js';
