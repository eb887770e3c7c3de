import { AppError } from '../../core/errors.js';
import type { DomainContext } from '../../db/context.js';
import type { BoardItem, StatusItem, TicketItem } from '../../db/entities/index.js';
import { agentPoliciesOf } from '../../organizations/index.js';
import type { OrgConfig } from '../config.js';
import { recordSuggestion } from './record.js';

/**
 * What the gate does with an agent's move into a gated status: `record` a suggestion (when
 * the board has Explainable Status) and refuse, or only `refuse` (a status change that is a
 * side effect, e.g. of moving the ticket to another board).
 */
export type ApprovalGateMode = 'record' | 'refuse';

export interface GatedMove {
  board: BoardItem;
  ticket: TicketItem;
  config: OrgConfig;
  toStatusId: string;
  reason?: string;
  mode?: ApprovalGateMode;
}

/** Whether the caller is an agent and the organization's policies gate moves into this status key. */
export function requiresApproval(ctx: DomainContext, statusKey: string | undefined): boolean {
  if (!ctx.actor.agent || statusKey === undefined) return false;
  return agentPoliciesOf(ctx.org).statusTransitionsRequireApproval.includes(statusKey);
}

/** 403 AGENT_APPROVAL_REQUIRED: its own class, so a run report that meets the gate records itself without the move. */
export class ApprovalRequired extends AppError {
  constructor(message: string, details: Record<string, unknown>) {
    super('AGENT_APPROVAL_REQUIRED', message, details);
    this.name = 'ApprovalRequired';
  }
}

/**
 * The approval gate (the API reference "move by an agent", AGENT_APPROVAL_REQUIRED): an agent's
 * status change into a gated status is refused with 403 AGENT_APPROVAL_REQUIRED and the
 * ticket stays unchanged. On a board with Explainable Status (and mode `record`) a PENDING
 * suggestion is recorded first and its id returned in the error details. People pass.
 */
export async function enforceApprovalGate(ctx: DomainContext, move: GatedMove): Promise<void> {
  if (move.toStatusId === move.ticket.statusId) return;
  const status = move.config.status(move.toStatusId);
  if (!status || !requiresApproval(ctx, status.key)) return;
  const details = { statusId: status.statusId, statusKey: status.key };
  if ((move.mode ?? 'record') === 'record' && move.board.explainableStatus) {
    const suggestionId = await recordSuggestion(ctx, { board: move.board, ticket: move.ticket, toStatusId: status.statusId, reason: move.reason });
    throw new ApprovalRequired(`Moving to ${status.name} needs a person's approval; a suggestion was recorded`, { suggestionId, ...details });
  }
  throw new ApprovalRequired(`Moving to ${status.name} needs a person's approval`, details);
}

/**
 * The gate on creation: an agent may not put a new ticket straight into a gated status either
 * (403 AGENT_APPROVAL_REQUIRED). Nothing is suggested, as there is no ticket to suggest a move
 * for; the agent creates it in an open status and moves it, which records a suggestion.
 */
export function assertAgentMayCreateIn(ctx: DomainContext, status: StatusItem): void {
  if (!requiresApproval(ctx, status.key)) return;
  throw new ApprovalRequired(`Creating a ticket in ${status.name} needs a person's approval`, { statusId: status.statusId, statusKey: status.key });
}
