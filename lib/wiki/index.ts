/** Public face of the wiki for other domains: they reach it only through this file. */
export { getPage } from './pages.js';
export { searchSpace, searchWiki } from './search.js';
export { WIKI_SEARCH_INDEX_JOB, indexWikiPage, runWikiSearchIndexJob, sweepStaleWikiIndex } from './search-index.js';
