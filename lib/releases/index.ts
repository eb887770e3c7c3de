/** Public face of the releases domain for the functions: the background job of a deletion. */
export { detachDeletedRelease, RELEASE_DETACHING_JOB } from './releases.js';
