import { createHttpHandler } from '../lib/http/router.js';
import { customersRoutes } from '../lib/customers/http.js';

export const handler = createHttpHandler(customersRoutes);
