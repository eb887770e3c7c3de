/** What ticket and wiki search share: the words they read, and the engine of the indexes the events function keeps. */
export { MAX_WORD_LENGTH, everyWordBegins, fold, wordsOf } from './text.js';
export { identityOf, indexPendingSubject, indexSubject, itemTarget, sweepStaleMarkers, type IndexSubject } from './indexer.js';
