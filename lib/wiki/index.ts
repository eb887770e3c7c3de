/** Public face of the wiki for other domains: they reach it only through this file. */
export { getPage } from './pages.js';
export { searchSpace, searchWiki } from './search.js';
