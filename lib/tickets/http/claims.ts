import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../../http/routes.js';
import { idParam } from '../../http/validation.js';
import { claimTicket, heartbeatClaim, releaseClaim } from '../claims/claims.js';
import { claimNext } from '../claims/next.js';
import { listHandoffs } from '../claims/handoffs.js';
import { handoffBody, heartbeatNote, leaseSeconds as seconds, reason } from './schemas.js';
import { claimOutcomeResult, claimResult, handoffResult } from '../shapes.js';
import { PRIORITIES } from '../../db/entities/index.js';

const ticketParams = z.object({ boardId: idParam, ticketId: idParam });
const ids = z.array(idParam).max(100, 'At most 100');

/** Claim routes of the `tickets` group (spec §4.2), claim-next and handoffs (beyond the spec). */
export const claimsRoutes: Routes = {
  'POST /api/v1/claims/next': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Claim the next ready ticket (atomic: never the same ticket twice)',
      description:
        'Claims for the caller the first ready ticket, by priority, then due date, then position, on the boards it may see and the filters given. ' +
        'Answers 204 when no ready ticket matches. Under contention it moves on to the next ready ticket.',
      result: claimOutcomeResult,
      errors: { 403: ['CLAIM_LIMIT_REACHED'] },
      status: 201,
      emptyStatus: 204,
      body: z.strictObject({
        leaseSeconds: seconds.optional(),
        assign: z.boolean().optional(),
        boardIds: ids.optional(),
        statusIds: ids.optional().meta({ description: 'Only tickets in these statuses (e.g. In Progress, not In Review)' }),
        labelIds: ids.optional(),
        typeIds: ids.optional(),
        priorities: z.array(z.enum(PRIORITIES)).max(4).optional(),
      }),
      handler: (ctx, { body }) => claimNext(ctx, body ?? {}),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/handoffs': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'List what past leases of a ticket handed on, newest first',
      result: z.array(handoffResult),
      envelope: 'data',
      params: ticketParams,
      query: z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
      handler: (ctx, { params, query }) => listHandoffs(ctx, params.boardId, params.ticketId, query.limit),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'Claim a ticket (exclusive, expiring lease)',
      result: claimOutcomeResult,
      errors: { 403: ['CLAIM_LIMIT_REACHED'], 409: ['TICKET_ALREADY_CLAIMED', 'TICKET_NOT_CLAIMABLE'] },
      status: 201,
      params: ticketParams,
      body: z.strictObject({ leaseSeconds: seconds.optional(), assign: z.boolean().optional() }),
      handler: (ctx, { params, body }) => claimTicket(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/heartbeat': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Renew your claim on a ticket',
      result: claimResult,
      errors: { 409: ['TICKET_ALREADY_CLAIMED', 'CLAIM_NOT_HELD'] },
      params: ticketParams,
      body: z.strictObject({
        extendSeconds: seconds.optional(),
        note: heartbeatNote.optional(),
      }),
      handler: (ctx, { params, body }) => heartbeatClaim(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/claim': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: true,
      ticketRefs: ['ticketId'],
      summary: 'Release a claim',
      result: z.strictObject({ released: z.literal(true) }),
      errors: { 409: ['TICKET_ALREADY_CLAIMED', 'CLAIM_NOT_HELD'] },
      denyDeleteCheckedByDomain: true,
      params: ticketParams,
      body: z.strictObject({ reason: reason.optional(), handoff: handoffBody.optional() }),
      handler: (ctx, { params, body }) => releaseClaim(ctx, params.boardId, params.ticketId, body ?? {}),
    }),
  ),
};
