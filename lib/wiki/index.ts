/** Public face of the wiki for other domains: they reach it only through this file. */
export { getPage } from './pages.js';
export { searchSpace, searchWiki } from './search.js';
export { indexWikiPage, sweepStaleWikiIndex } from './search-index.js';
export { wikiJobs } from './jobs.js';
export { getPageOp, searchWikiOp } from './operations.js';
