/** Ticket search: the matching rule, the index kept by the events function, and the lists it serves. */
export { matchesSearch, parseSearch, searchTermsOf } from './text.js';
export { SEARCH_INDEX_JOB, changesSearchEntries } from './pending.js';
export { indexTicketSearch, runSearchIndexJob, sweepStaleSearchIndex, termEntriesOf } from './indexer.js';
export { listBySearch, servedBySearch } from './list.js';
export { countUpdate } from './counts.js';
