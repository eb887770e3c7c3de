import type { Routes } from '../http/router.js';

export const commentsRoutes: Routes = {};
