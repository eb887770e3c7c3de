import type { Routes } from '../http/router.js';

export const customFieldsRoutes: Routes = {};
