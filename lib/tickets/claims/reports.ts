import * as z from 'zod';
import { AppError } from '../../core/errors.js';
import { ApprovalRequired } from '../approvals/approval-gate.js';
import { webLink } from '../../core/fields.js';
import { usage } from '../inputs.js';
import type { DomainContext } from '../../db/context.js';
import type { BoardItem, StatusItem } from '../../db/entities/index.js';
import { usageEffects, warnOfBudgets, type UsageInput } from './spend.js';
import { retryLostRaces } from '../../db/races.js';
import { activityDelta } from '../../activity/index.js';
import { requirePermission } from '../../organizations/index.js';
import { loadTicketWithConfig } from '../access.js';
import { baseTicketData } from '../events.js';
import { CLAIM_ATTRIBUTES, fenceRefusal, hasLiveClaim, releasedClaimEffects } from '../record/lease.js';
import { updateTicket } from '../update.js';
import type { OrgConfig } from '../config.js';

export const REPORT_OUTCOMES = ['done', 'blocked', 'needs_review', 'partial'] as const;
export type ReportOutcome = (typeof REPORT_OUTCOMES)[number];

/** A run report's input, one schema for REST (`POST …/reports`) and MCP (`tickets_report`), built on first use. */
export const reportFields = () => ({
  outcome: z.enum(REPORT_OUTCOMES),
  summary: z.string().min(1).max(2_000),
  prUrl: webLink(2_000).optional(),
  branch: z.string().max(255).optional(),
  setStatus: z.boolean().optional(),
  releaseClaim: z.boolean().optional(),
  usage: usage.optional(),
});

export interface ReportInput {
  outcome: ReportOutcome;
  summary: string;
  prUrl?: string | undefined;
  branch?: string | undefined;
  /** Move the ticket to the outcome's status, where the board's gate allows. */
  setStatus?: boolean | undefined;
  releaseClaim?: boolean | undefined;
  /** The MCP client's name, recorded with the report and in ticket.reported. */
  clientName?: string | null | undefined;
  /** What the run cost (docs/fleet-control.md, "Spend"): counted in this write's own transaction. */
  usage?: UsageInput | undefined;
}

/** The overview counter of each outcome (lib/agents/overview.ts reads them). */
const COUNTERS = { done: 'reportsDone', blocked: 'reportsBlocked', needs_review: 'reportsNeedsReview', partial: 'reportsPartial' } as const;

/** The status an outcome moves the ticket to: done → the first FINAL status; blocked → BLOCKED; needs_review → IN_REVIEW; partial stays. */
function statusFor(outcome: ReportOutcome, config: OrgConfig): StatusItem | undefined {
  if (outcome === 'done') return config.statuses.find((status) => status.category === 'FINAL');
  if (outcome === 'blocked') return config.statuses.find((status) => status.key === 'BLOCKED');
  if (outcome === 'needs_review') return config.statuses.find((status) => status.key === 'IN_REVIEW');
  return undefined;
}

/**
 * An agent's report of a run on a ticket it holds (MCP `tickets_report`): in ONE ticket write,
 * a REPORTED timeline entry, `ticket.reported` with the spec's fields, the agent's report
 * counter of the day, and as asked the move to the outcome's status and the claim's release.
 * The caller must hold the ticket's live claim (under a named `claimCount`, that very claim):
 * CLAIM_NOT_HELD or CLAIM_SUPERSEDED otherwise, so a loop that lost its lease stops. A status
 * the approval gate refuses is not set (`statusChanged: false`); the report stands.
 */
export async function reportRun(ctx: DomainContext, boardId: string, ticketId: string, input: ReportInput) {
  requirePermission(ctx, 'tickets:edit');
  let board!: BoardItem;
  const result = await retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    board = loaded.board;
    const { ticket, config } = loaded;
    const now = ctx.clock.now();
    const me = ctx.actor.userId;
    if (ctx.claimFence !== undefined) {
      const refusal = fenceRefusal(ticket, me, ctx.claimFence, now);
      if (refusal) throw refusal;
    } else if (!hasLiveClaim(ticket, now) || ticket.claimedById !== me) {
      throw new AppError('CLAIM_NOT_HELD', 'You hold no live claim on this ticket; claim it first');
    }

    const target = input.setStatus ? statusFor(input.outcome, config) : undefined;
    const write = async (statusId: string | undefined) => {
      const entersFinal = statusId !== undefined && config.status(statusId)?.category === 'FINAL' && ticket.statusCategory !== 'FINAL';
      const claimReleased = !!input.releaseClaim || entersFinal;
      const released = input.releaseClaim ? releasedClaimEffects(ticket, me, `reported ${input.outcome}`, now) : undefined;
      const spent = input.usage ? usageEffects(ctx, ticket, loaded.board, input.usage, true, now) : undefined;
      const statusChanged = statusId !== undefined && statusId !== ticket.statusId;
      const data = {
        ...baseTicketData(ticket),
        actorId: me,
        outcome: input.outcome,
        summary: input.summary,
        prUrl: input.prUrl ?? null,
        branch: input.branch ?? null,
        statusChanged,
        claimReleased,
        clientName: input.clientName ?? null,
      };
      await updateTicket(ctx, loaded, statusChanged ? { statusId } : {}, {
        statusReason: statusChanged ? `Reported ${input.outcome}: ${input.summary}`.slice(0, 500) : undefined,
        remove: input.releaseClaim ? [...CLAIM_ATTRIBUTES] : [],
        ...(released || spent ? { extra: { ...released?.fields, ...spent?.fields } } : {}),
        related: (e) => [
          ...(released?.related(e) ?? []),
          ...(spent?.related(e) ?? []),
          activityDelta(e, ticket.orgId, me, now, { [COUNTERS[input.outcome]]: 1, ...(input.usage ? { costMicros: input.usage.costMicros } : {}) }),
        ],
        timeline: [
          ...(released?.timeline ?? []),
          { kind: 'REPORTED', details: { outcome: input.outcome, summary: input.summary, prUrl: data.prUrl, branch: data.branch, clientName: data.clientName, usage: input.usage ?? null } },
        ],
        events: [...(released?.events ?? []), { type: 'ticket.reported', data }],
      });
      return { ticketId: ticket.ticketId, displayId: ticket.displayId, outcome: input.outcome, statusChanged, claimReleased, statusId: statusChanged ? statusId! : ticket.statusId };
    };
    if (!target || target.statusId === ticket.statusId) return write(undefined);
    try {
      return await write(target.statusId);
    } catch (error) {
      // The approval gate keeps the status; the report is recorded without it.
      if (error instanceof ApprovalRequired) return { ...(await write(undefined)), approvalRequired: true };
      throw error;
    }
  });
  if (input.usage) await warnOfBudgets(ctx, board);
  return result;
}
