/** Public face of the notifications domain for other domains: they reach it only through this file. */
export { notificationPut } from './records.js';
