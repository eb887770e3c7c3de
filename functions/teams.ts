import { createHttpHandler } from '../lib/http/router.js';
import { teamsRoutes } from '../lib/teams/http.js';

export const handler = createHttpHandler(teamsRoutes);
