/** Ticket search: the matching rule and the index kept with each ticket (its lists: lists/search.ts). */
export { matchesSearch, parseSearch, searchTermsOf } from './text.js';
export { SEARCH_INDEX_JOB, changesSearchEntries } from './pending.js';
export { indexTicketSearch, runSearchIndexJob, sweepStaleSearchIndex, termEntriesOf } from './indexer.js';
export { countUpdate } from './counts.js';
