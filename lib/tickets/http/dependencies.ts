import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../../http/routes.js';
import { idParam } from '../../http/validation.js';
import { addDependency, listDependencies, removeDependency } from '../dependencies/dependencies.js';
import { dependenciesResult } from '../shapes.js';

const ticketParams = z.object({ boardId: idParam, ticketId: idParam });
const dependencyParams = ticketParams.extend({ blockerId: idParam.meta({ description: 'The ticket it waits for: a ticket id or a display id (`PLAT-12`), on any board' }) });

/** Dependencies between tickets (beyond the spec): what a ticket waits for, across boards. */
export const dependencyRoutes: Routes = {
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/dependencies': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'List what a ticket waits for and what waits for it',
      result: dependenciesResult,
      envelope: 'data',
      params: ticketParams,
      handler: (ctx, { params }) => listDependencies(ctx, params.boardId, params.ticketId),
    }),
  ),
  'PUT /api/v1/boards/{boardId}/tickets/{ticketId}/dependencies/{blockerId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId', 'blockerId'],
      summary: 'Make a ticket wait for another (idempotent)',
      result: dependenciesResult,
      envelope: 'data',
      errors: ['DEPENDENCY_CYCLE'],
      params: dependencyParams,
      handler: (ctx, { params }) => addDependency(ctx, params.boardId, params.ticketId, params.blockerId),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/dependencies/{blockerId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId', 'blockerId'],
      summary: 'Remove a dependency',
      status: 204,
      params: dependencyParams,
      handler: (ctx, { params }) => removeDependency(ctx, params.boardId, params.ticketId, params.blockerId),
    }),
  ),
};
