/**
 * The part of `zod/mini` job payload schemas are written with (lib/events/jobs.ts). It is loaded
 * by a dynamic import when the first job runs, so no function evaluates zod in its cold start
 * for declaring or enqueueing a job, and the bundle keeps only these functions.
 */
export { _default, array, boolean, enum, int, nonnegative, nullable, number, object, optional, safeParse, string } from 'zod/mini';
