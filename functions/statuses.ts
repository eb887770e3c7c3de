import { createHttpHandler } from '../lib/http/router.js';
import { statusesRoutes } from '../lib/statuses/http.js';

export const handler = createHttpHandler(statusesRoutes);
