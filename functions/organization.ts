import { createHttpHandler } from '../lib/http/router.js';
import { organizationRoutes } from '../lib/organizations/http.js';

export const handler = createHttpHandler(organizationRoutes);
