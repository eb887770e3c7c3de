import * as z from 'zod';
import { open, type Routes, onFirstUse } from '../http/routes.js';
import { db } from '../db/service.js';

export const healthRoutes: Routes = {
  'GET /healthz': onFirstUse(() =>
    open({
      summary: 'Liveness: the function runs and the table answers',
      result: z.strictObject({ status: z.literal('ok') }),
      handler: async () => {
        // One read proves the table is reachable; the key is never written.
        await db().entities.organizationSlug.get({ slug: '__health__' }).go();
        return { status: 'ok' as const };
      },
    }),
  ),
};
