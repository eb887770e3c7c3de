import type { Routes } from '../http/router.js';

export const labelsRoutes: Routes = {};
