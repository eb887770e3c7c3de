import { invalidField } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import type { BoardItem, StatusItem } from '../db/entities/index.js';
import { requirePermission } from '../organizations/index.js';
import { loadOrganizationStatuses, presentStatus } from '../statuses/index.js';
import { loadVisibleBoard } from './access.js';
import { patchLiveBoard } from './board-writes.js';

/** A board's transition rule: from this status a ticket may move only to these (the API reference, boards). */
export interface TransitionRule {
  fromStatusId: string;
  toStatusIds: string[];
}

/**
 * Whether the board shows the organization status: the board's chosen set, or the statuses
 * enabled by default when it never chose. Mandatory statuses are always shown.
 */
export function isStatusEnabledOnBoard(board: BoardItem, status: StatusItem): boolean {
  if (status.isMandatory) return true;
  return board.enabledStatusIds ? board.enabledStatusIds.includes(status.statusId) : status.enabledByDefault;
}

const rulesOf = (board: BoardItem): TransitionRule[] => (board.transitionRules as TransitionRule[] | undefined) ?? [];

/** No rules: any move is allowed. A status without a rule of its own may move anywhere. */
export function isTransitionAllowed(board: BoardItem, fromStatusId: string, toStatusId: string): boolean {
  const rule = rulesOf(board).find((candidate) => candidate.fromStatusId === fromStatusId);
  return !rule || fromStatusId === toStatusId || rule.toStatusIds.includes(toStatusId);
}

/** The board and the organization's statuses (in display order), read side by side. */
async function loadBoardWithStatuses(ctx: DomainContext, boardId: string) {
  const [board, statuses] = await Promise.all([loadVisibleBoard(ctx, boardId), loadOrganizationStatuses(ctx.org.orgId)]);
  return { board, statuses };
}

/** The organization statuses as GET /statuses shows them, each with whether this board shows it. */
function presentBoardStatuses(board: BoardItem, statuses: StatusItem[]) {
  return statuses.map((status) => ({ ...presentStatus(status), enabled: isStatusEnabledOnBoard(board, status) }));
}

/** Every organization status in order, each with whether this board shows it. */
export async function getBoardStatuses(ctx: DomainContext, boardId: string) {
  const { board, statuses } = await loadBoardWithStatuses(ctx, boardId);
  return presentBoardStatuses(board, statuses);
}

/** Chooses the statuses the board shows: organization statuses only, every mandatory one included. */
export async function setBoardStatuses(ctx: DomainContext, boardId: string, statusIds: string[]) {
  requirePermission(ctx, 'boards:edit');
  const { board, statuses } = await loadBoardWithStatuses(ctx, boardId);
  const known = new Set(statuses.map((status) => status.statusId));
  statusIds.forEach((statusId, index) => {
    if (!known.has(statusId)) throw invalidField(`statusIds.${index}`, 'Unknown status');
  });
  const chosen = new Set(statusIds);
  const missingMandatory = statuses.find((status) => status.isMandatory && !chosen.has(status.statusId));
  if (missingMandatory) throw invalidField('statusIds', `The mandatory status ${missingMandatory.name} must stay enabled`);
  const enabledStatusIds = statuses.filter((status) => chosen.has(status.statusId)).map((status) => status.statusId);
  const updated = await patchLiveBoard(board, { enabledStatusIds, updatedAt: ctx.clock.now().toISOString() });
  return presentBoardStatuses(updated, statuses);
}

export async function getTransitionRules(ctx: DomainContext, boardId: string) {
  return { rules: rulesOf(await loadVisibleBoard(ctx, boardId)) };
}

/** Replaces the board's transition rules; every id must be an organization status, one rule per from-status. */
export async function setTransitionRules(ctx: DomainContext, boardId: string, rules: TransitionRule[]) {
  requirePermission(ctx, 'boards:edit');
  const { board, statuses } = await loadBoardWithStatuses(ctx, boardId);
  const known = new Set(statuses.map((status) => status.statusId));
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    if (!known.has(rule.fromStatusId)) throw invalidField(`rules.${index}.fromStatusId`, 'Unknown status');
    if (seen.has(rule.fromStatusId)) throw invalidField(`rules.${index}.fromStatusId`, 'Another rule already starts from this status');
    seen.add(rule.fromStatusId);
    rule.toStatusIds.forEach((toStatusId, toIndex) => {
      if (!known.has(toStatusId)) throw invalidField(`rules.${index}.toStatusIds.${toIndex}`, 'Unknown status');
    });
  });
  const stored = rules.map((rule) => ({ fromStatusId: rule.fromStatusId, toStatusIds: [...new Set(rule.toStatusIds)] }));
  const updated = await patchLiveBoard(board, { transitionRules: stored, updatedAt: ctx.clock.now().toISOString() });
  return { rules: rulesOf(updated) };
}
