import { createHttpHandler } from '../lib/http/router.js';
import { userRoutes } from '../lib/users/http.js';

export const handler = createHttpHandler(userRoutes);
