import * as z from 'zod';
import { authenticated, type Routes } from '../../http/routes.js';
import { idParam } from '../../http/validation.js';
import { claimTicket, heartbeatClaim, releaseClaim } from '../claims/claims.js';
import { reason } from './schemas.js';
import { claimOutcomeResult, claimResult } from '../shapes.js';

const ticketParams = z.object({ boardId: idParam, ticketId: idParam });
/** Lease lengths are clamped by the domain (spec §4.2), so any finite number is accepted here. */
/** A lease length: clamped to 60–14,400 seconds (out-of-range values are not refused). */
const seconds = z.number().finite().meta({ description: 'Seconds; clamped to 60–14,400', default: 1800 });

/** Claim routes of the `tickets` group (spec §4.2). */
export const claimsRoutes: Routes = {
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim': authenticated({
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
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/heartbeat': authenticated({
    scope: 'write',
    fence: true,
    ticketRefs: ['ticketId'],
    summary: 'Renew your claim on a ticket',
    result: claimResult,
    errors: { 409: ['TICKET_ALREADY_CLAIMED', 'CLAIM_NOT_HELD'] },
    params: ticketParams,
    body: z.strictObject({ extendSeconds: seconds.optional() }),
    handler: (ctx, { params, body }) => heartbeatClaim(ctx, params.boardId, params.ticketId, body),
  }),
  'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/claim': authenticated({
    scope: 'write',
    fence: true,
    ticketRefs: ['ticketId'],
    summary: 'Release a claim',
    result: z.strictObject({ released: z.literal(true) }),
    errors: { 409: ['TICKET_ALREADY_CLAIMED', 'CLAIM_NOT_HELD'] },
    denyDeleteCheckedByDomain: true,
    params: ticketParams,
    body: z.strictObject({ reason: reason.optional() }),
    handler: (ctx, { params, body }) => releaseClaim(ctx, params.boardId, params.ticketId, body),
  }),
};
