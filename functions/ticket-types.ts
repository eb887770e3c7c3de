import { createHttpHandler } from '../lib/http/router.js';
import { ticketTypesRoutes } from '../lib/ticket-types/http.js';

export const handler = createHttpHandler(ticketTypesRoutes);
