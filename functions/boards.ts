import { createHttpHandler } from '../lib/http/router.js';
import { boardsRoutes } from '../lib/boards/http.js';

export const handler = createHttpHandler(boardsRoutes);
