import { open, type Routes } from '../http/router.js';
import { db } from '../db/service.js';

export const healthRoutes: Routes = {
  'GET /healthz': open({
    handler: async () => {
      // One read proves the table is reachable; the key is never written.
      await db().entities.organizationSlug.get({ slug: '__health__' }).go();
      return { status: 'ok' };
    },
  }),
};
