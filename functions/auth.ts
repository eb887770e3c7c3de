import { createHttpHandler } from '../lib/http/router.js';
import { authRoutes } from '../lib/identity/http.js';

export const handler = createHttpHandler(authRoutes);
