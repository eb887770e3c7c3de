import { createHttpHandler } from '../lib/http/router.js';
import { healthRoutes } from '../lib/health/http.js';

export const handler = createHttpHandler(healthRoutes);
