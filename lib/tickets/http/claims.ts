import * as z from 'zod';
import { authenticated, EmptyAnswer, fromOperation, type Routes, onFirstUse } from '../../http/routes.js';
import { idParam } from '../../http/validation.js';
import { claimTicket, heartbeatClaim, releaseClaim } from '../claims/claims.js';
import { liftQuarantine } from '../claims/quarantine.js';
import { DIRECTIVE_ACTIONS, directClaim, MESSAGE_LIMIT, messageClaimHolder } from '../claims/directives.js';
import { claimNext } from '../claims/next.js';
import { listHandoffs } from '../claims/handoffs.js';
import { reportRun } from '../claims/reports.js';
import { listSpend } from '../claims/spend.js';
import { claimNextOp, claimTicketOp, heartbeatOp, releaseClaimOp, reportRunOp } from '../operations.js';
import { pageEnvelope } from '../../http/pagination.js';
import { calendarDate } from '../../core/fields.js';
import { pageQuery } from '../../http/validation.js';
import { SPEND_DIMENSIONS } from '../../db/entities/index.js';
import { claimOutcomeResult, directiveResult, handoffResult, heartbeatResult, leaseMessageResult, reportResult, spendResult } from '../shapes.js';

const ticketParams = z.object({ boardId: idParam, ticketId: idParam });

/** Claim routes of the `tickets` group (docs/claims.md), claim-next and handoffs (beyond the spec). */
export const claimsRoutes: Routes = {
  'POST /api/v1/claims/next': onFirstUse(() =>
    authenticated({
      ...fromOperation(claimNextOp, { body: true }),
      summary: 'Claim the next ready ticket (atomic: never the same ticket twice)',
      description:
        'Claims for the caller the first ready ticket, by priority, then due date, then position, on the boards it may see and the filters given. ' +
        'Answers 204 when no ready ticket matches. Under contention it moves on to the next ready ticket. ' +
        'For an agent, dispatch may be paused: for the organization or the agent itself (204 at once), on a board (its tickets are passed over), or by a spent budget; ' +
        'a 204 then says which in `X-Dispatch-Paused`.',
      result: claimOutcomeResult,
      status: 201,
      emptyStatus: 204,
      emptyHeaders: { 'X-Dispatch-Paused': '`organization`, `agent`, `board` or `budget`: dispatch is paused there, and that is why no work was given' },
      handler: async (ctx, { body }) => {
        const { claimed, paused } = await claimNext(ctx, body ?? {});
        return claimed ?? (paused ? new EmptyAnswer({ 'x-dispatch-paused': paused }) : null);
      },
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
      ...fromOperation(claimTicketOp, { body: true }),
      summary: 'Claim a ticket (exclusive, expiring lease)',
      result: claimOutcomeResult,
      status: 201,
      params: ticketParams,
      handler: (ctx, { params, body }) => claimTicket(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/heartbeat': onFirstUse(() =>
    authenticated({
      ...fromOperation(heartbeatOp, { body: true }),
      summary: 'Renew your claim on a ticket',
      description: "The answer carries what people asked of you: the `directive` in force (stop, pause, resume) and the `messages` sent since your last heartbeat (each delivered once).",
      result: heartbeatResult,
      params: ticketParams,
      handler: (ctx, { params, body }) => heartbeatClaim(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/reports': onFirstUse(() =>
    authenticated({
      ...fromOperation(reportRunOp, { body: true }),
      summary: 'Report a run on a ticket you hold',
      description:
        "The outcome and a short summary of a run, optionally a PR or branch and the run's `usage`; `setStatus` moves the ticket to the outcome's status (where the board's gate allows), " +
        '`releaseClaim` hands the lease back. The same operation as the MCP tool `tickets_report`. Needs your live claim on the ticket.',
      result: reportResult,
      status: 201,
      params: ticketParams,
      handler: (ctx, { params, body }) => reportRun(ctx, params.boardId, params.ticketId, { ...body, clientName: ctx.actor.credential.clientLabel }),
    }),
  ),
  'GET /api/v1/spend': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'What runs cost, grouped by agent, board, milestone or day',
      description: 'Summed from every report and heartbeat `usage` in range (UTC days, at most 366), exact. Needs `agents:manage`.',
      result: spendResult,
      query: z.strictObject({
        ...pageQuery(50, 200),
        groupBy: z.enum(SPEND_DIMENSIONS),
        from: calendarDate,
        to: calendarDate,
      }),
      handler: async (ctx, { query }) => {
        const { page, totals } = await listSpend(ctx, query);
        return { ...pageEnvelope(page), totals };
      },
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/directive': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: "Tell a lease's holder to stop, pause or resume",
      description:
        'By a person with `tickets:edit`, the holding agent\'s owner, or an administrator; never an agent. The holder hears it in its next heartbeat. ' +
        '`stop`: release now; the lease ends at `stopDeadline` (120 s) at the latest, with a handoff naming the stop. `pause`: keep the lease, do no work until `resume`.',
      result: directiveResult,
      errors: ['CLAIM_NOT_HELD', 'CLAIM_STOPPING'],
      params: ticketParams,
      body: z.strictObject({ action: z.enum(DIRECTIVE_ACTIONS), message: z.string().trim().min(1).max(MESSAGE_LIMIT).optional() }),
      handler: (ctx, { params, body }) => directClaim(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/messages': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: "Send a note to a lease's holder",
      description: "Delivered once, in the holder's next heartbeat answer. Same callers as the directive.",
      result: leaseMessageResult,
      errors: ['CLAIM_NOT_HELD', 'MESSAGES_PENDING'],
      status: 201,
      params: ticketParams,
      body: z.strictObject({ text: z.string().trim().min(1).max(MESSAGE_LIMIT) }),
      handler: (ctx, { params, body }) => messageClaimHolder(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/quarantine': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'Return a quarantined ticket to the ready queue',
      description: 'Needs `tickets:edit`; a person, never an agent. Its run of lapsed leases starts again from zero. A ticket that is not quarantined is left as it is.',
      status: 204,
      params: ticketParams,
      handler: (ctx, { params }) => liftQuarantine(ctx, params.boardId, params.ticketId),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/claim': onFirstUse(() =>
    authenticated({
      ...fromOperation(releaseClaimOp, { body: true }),
      summary: 'Release a claim',
      result: z.strictObject({ released: z.literal(true) }),
      denyDeleteCheckedByDomain: true,
      params: ticketParams,
      handler: (ctx, { params, body }) => releaseClaim(ctx, params.boardId, params.ticketId, body ?? {}),
    }),
  ),
};
