import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../../http/routes.js';
import { idParam, pageQuery } from '../../http/validation.js';
import { listTimeline } from '../timeline.js';
import { timelineEntryResult } from '../shapes.js';

/** The ticket timeline (Explainable Status, the API reference). */
export const timelineRoutes: Routes = {
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/timeline': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'List a ticket\'s timeline',
      result: timelineEntryResult,
      envelope: 'page',
      params: z.object({ boardId: idParam, ticketId: idParam }),
      query: z.strictObject(pageQuery(50, 200)),
      handler: (ctx, { params, query }) => listTimeline(ctx, params.boardId, params.ticketId, query),
    }),
  ),
};
