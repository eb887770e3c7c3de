import * as z from 'zod';
import { authenticated, fromOperation, type Routes, onFirstUse } from '../../http/routes.js';
import { commaSeparated, idParam, queryBoolean } from '../../http/validation.js';
import { listIssues } from '../lists/list.js';
import { listTicketsOp } from '../operations.js';
import { listFilterQuery, toFilters } from './schemas.js';
import { ticketResult } from '../shapes.js';

const boardIdList = commaSeparated.pipe(z.array(idParam).min(1, 'At least one board id').max(100, 'At most 100 boards'));

/** GET /api/v1/issues (the API reference): the board list's filters plus the cross-board ones. */
// Built on first use (lib/core/shapes.ts says why).
const issuesQuery = z.lazy(() =>
  z.strictObject({
    ...listFilterQuery(),
    boardId: boardIdList.optional(),
    claimable: queryBoolean.optional(),
    assignedToMe: queryBoolean.optional(),
    /** Only ready work (live, ACTIVE and not BLOCKED, unclaimed, every dependency FINAL, no open subticket), in queue order. */
    ready: queryBoolean.optional(),
    /** A user id, or `me` for the caller. */
    claimedBy: idParam.optional(),
    quarantined: queryBoolean.optional().meta({ description: 'true: only quarantined tickets (out of the ready queue after too many lapsed leases in a row)' }),
  }),
);

export const issuesRoutes: Routes = {
  'GET /api/v1/issues': onFirstUse(() =>
    authenticated({
      ...fromOperation(listTicketsOp),
      summary: 'List tickets across boards (claimable work, your claims …)',
      result: ticketResult,
      envelope: 'page',
      query: issuesQuery,
      handler: (ctx, { query }) =>
        listIssues(ctx, {
          ...toFilters(query),
          boardIds: query.boardId,
          claimable: query.claimable,
          assignedToMe: query.assignedToMe,
          ready: query.ready,
          quarantined: query.quarantined,
          claimedBy: query.claimedBy === undefined ? undefined : query.claimedBy === 'me' ? ctx.actor.userId : query.claimedBy,
        }),
    }),
  ),
};
