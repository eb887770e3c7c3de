import { presentPullRequest, pullRequestsOfTicket } from '../../integrations/index.js';
import type { DomainContext } from '../../db/context.js';
import type { BoardItem, TicketItem } from '../../db/entities/index.js';
import { loadTicketOnBoard, loadTicketWithConfig, loadTickets, onVisibleBoards } from '../access.js';
import type { OrgConfig } from '../config.js';
import { loadSubtickets } from './subtickets.js';
import { dependencyItemsOf } from '../record/edges.js';
import { isOpenTicket } from '../record/readiness.js';

/** What the workflow stores on a blocked ticket (POST .../transition to BLOCKED). */
interface BlockerInfo {
  reason?: string;
  reasonText?: string;
  blockedBy?: string;
  blockingTicketIds?: string[];
}

const blockerInfoOf = (ticket: TicketItem): BlockerInfo | undefined => (ticket.blockerInfo as BlockerInfo | undefined) ?? undefined;

/**
 * GET .../completion-check (the API reference): whether the ticket may be completed now. It may
 * unless a subticket is still open (not in a FINAL status) or blocker info is recorded.
 * Reads the ticket, then its subtickets; status categories come from the tickets themselves.
 */
export async function getCompletionCheck(ctx: DomainContext, boardId: string, ticketId: string) {
  const { ticket } = await loadTicketOnBoard(ctx, boardId, ticketId);
  const subtickets = await loadSubtickets(ctx, ticket);
  const open = subtickets.filter((subticket) => subticket.statusCategory !== 'FINAL');
  const completed = subtickets.length - open.length;
  const blocker = blockerInfoOf(ticket);
  return {
    canComplete: open.length === 0 && !blocker,
    hasOpenSubtickets: open.length > 0,
    openSubtickets: open.map((subticket) => ({ id: subticket.ticketId, title: subticket.title, displayId: subticket.displayId })),
    aggregation: { total: subtickets.length, completed, summary: `${completed}/${subtickets.length} completed` },
    blockers: blocker
      ? [{ reason: blocker.reason ?? null, reasonText: blocker.reasonText ?? null, blockedBy: blocker.blockedBy ?? null, blockingTicketIds: blocker.blockingTicketIds ?? [] }]
      : [],
    requirements: {
      hasDescription: ticket.description.trim().length > 0,
      hasAssignee: !!ticket.assigneeId,
      hasCustomer: !!ticket.customerId,
      hasNoActiveSubtickets: open.length === 0,
    },
  };
}

/** The blocking tickets the caller may see: live tickets of the organization on a board the caller can see. */
async function loadVisibleBlockingTickets(ctx: DomainContext, board: BoardItem, ticketIds: string[]): Promise<TicketItem[]> {
  return onVisibleBoards(ctx, board, await loadTickets(ctx, [...new Set(ticketIds)]));
}

function presentBlockingTicket(ticket: TicketItem, config: OrgConfig) {
  const status = config.status(ticket.statusId);
  return {
    id: ticket.ticketId,
    ticketNumber: ticket.displayId,
    title: ticket.title,
    status: { id: ticket.statusId, name: status?.name ?? '', color: status?.color ?? '#9E9E9E' },
    createdAt: ticket.createdAt,
  };
}

/**
 * GET .../blocker (the API reference): the ticket is blocked while it is in the BLOCKED status, carries
 * blocker info, or depends on a ticket still open (lib/tickets/dependencies). `blockingTickets`
 * lists the tickets named by the blocker info and the open dependencies; `blockerCount`
 * counts the blocking tickets shown.
 */
export async function getBlockerInfo(ctx: DomainContext, boardId: string, ticketId: string) {
  const [{ board, ticket, config }, dependencies] = await Promise.all([loadTicketWithConfig(ctx, boardId, ticketId), dependencyItemsOf(ticketId, 'blockedBy')]);
  const blocker = blockerInfoOf(ticket);
  const named = await loadVisibleBlockingTickets(ctx, board, [...(blocker?.blockingTicketIds ?? []), ...dependencies.map((item) => item.otherId)]);
  const fromInfo = new Set(blocker?.blockingTicketIds ?? []);
  // A dependency blocks while its ticket is open; tickets named in the blocker info are listed as recorded.
  const blocking = named.filter((other) => fromInfo.has(other.ticketId) || isOpenTicket(other));
  const openDependency = blocking.some((other) => !fromInfo.has(other.ticketId));
  return {
    isBlocked: config.status(ticket.statusId)?.key === 'BLOCKED' || !!blocker || openDependency || (ticket.openBlockerCount ?? 0) > 0,
    reason: blocker?.reason ?? null,
    reasonText: blocker?.reasonText ?? null,
    blockingTickets: blocking.map((blockingTicket) => presentBlockingTicket(blockingTicket, config)),
    blockerCount: blocking.length,
  };
}

/** GET .../pull-requests: the ticket's linked pull requests. */
export async function listTicketPullRequests(ctx: DomainContext, boardId: string, ticketId: string) {
  const { ticket } = await loadTicketOnBoard(ctx, boardId, ticketId);
  return (await pullRequestsOfTicket(ctx.org.orgId, ticket.ticketId)).map(presentPullRequest);
}
