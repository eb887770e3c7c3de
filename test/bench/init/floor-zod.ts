/**
 * A reference row of `npm run bench:init`: the floor plus zod (classic, as every HTTP function
 * imports it), with one schema built. Shows what zod alone adds to a cold start.
 */
import * as z from 'zod';

export * from './floor.js';

export const schema = z.strictObject({ id: z.string() });
