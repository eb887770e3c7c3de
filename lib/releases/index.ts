/** Public face of the releases domain for the functions: the background job of a deletion. */
export { releaseJobs } from './jobs.js';
