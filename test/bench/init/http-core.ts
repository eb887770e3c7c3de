/**
 * A reference row of `npm run bench:init`: the HTTP core every HTTP function loads before any of
 * its routes (router, authentication, zod, jose, the entity registry, middy), with no route.
 * What a function adds above this row is its own routes, schemas and domain code.
 */
import { createHttpHandler } from '../../../lib/http/router.js';

export { handler as floorHandler } from './floor.js';

export const handler = createHttpHandler({});
