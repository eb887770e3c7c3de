import { AppError, invalidField, notFound } from '../../core/errors.js';
import type { DomainContext } from '../../db/context.js';
import type { BoardItem, DependencyItem, TicketItem } from '../../db/entities/index.js';
import { LostRace, retryLostRaces } from '../../db/races.js';
import { guarded, type TransactionEntities } from '../../db/transact.js';
import { requirePermission } from '../../organizations/index.js';
import { liveTicketOf, loadTicketOnBoard, onVisibleBoards, seesEveryBoard } from '../access.js';
import { loadOrgConfig, type OrgConfig } from '../config.js';
import { baseTicketData } from '../events.js';
import { saveTicket } from '../write.js';
import { dependencyItemsOf, openCount, ticketsById, unblockedBy } from '../record/edges.js';
import { isOpenTicket } from '../record/readiness.js';

/** Tickets one ticket may depend on. */
export const MAX_BLOCKERS_PER_TICKET = 50;

/**
 * Tickets a cycle check may visit: each one visited is version-checked in the transaction that
 * adds the dependency (so two concurrent additions cannot close a cycle together), and a
 * transaction holds at most 100 items.
 */
export const MAX_DEPENDENCY_CHAIN = 90;

/** A ticket as another ticket's dependency names it. */
function presentRef(ticket: TicketItem, config: OrgConfig) {
  const status = config.status(ticket.statusId);
  const category = status?.category ?? ticket.statusCategory;
  return {
    id: ticket.ticketId,
    displayId: ticket.displayId,
    title: ticket.title,
    boardId: ticket.boardId,
    status: { id: ticket.statusId, name: status?.name ?? '', category },
    done: category === 'FINAL',
  };
}

/**
 * GET …/dependencies: what the ticket waits for (`blockedBy`) and what waits for it (`blocks`),
 * each in the order the dependency was added, leaving out tickets the caller cannot see.
 */
export async function listDependencies(ctx: DomainContext, boardId: string, ticketId: string) {
  const [{ board, ticket }, config] = await Promise.all([loadTicketOnBoard(ctx, boardId, ticketId), loadOrgConfig(ctx.org.orgId)]);
  return presentDependencies(ctx, board, await dependencyItemsOf(ticket.ticketId), config);
}

async function presentDependencies(ctx: DomainContext, board: BoardItem, items: DependencyItem[], config: OrgConfig) {
  const ordered = [...items].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.otherId.localeCompare(b.otherId));
  const others = await ticketsById(ctx.org.orgId, [...new Set(ordered.map((item) => item.otherId))]);
  const visible = new Set((await onVisibleBoards(ctx, board, [...others.values()].filter((other) => liveTicketOf(ctx, other)))).map((other) => other.ticketId));
  const refs = (direction: DependencyItem['direction']) =>
    ordered
      .filter((item) => item.direction === direction)
      .map((item) => liveTicketOf(ctx, others.get(item.otherId)))
      .filter((other): other is TicketItem => !!other && visible.has(other.ticketId))
      .map((other) => presentRef(other, config));
  return { blockedBy: refs('blockedBy'), blocks: refs('blocks') };
}

/** The blocker named in the path: a live ticket of the organization on a board the caller can see (`known` is); 404 otherwise. */
async function loadVisibleBlocker(ctx: DomainContext, blockerId: string, known: BoardItem): Promise<TicketItem> {
  const blocker = liveTicketOf(ctx, (await ticketsById(ctx.org.orgId, [blockerId])).get(blockerId));
  if (!blocker) throw notFound('Ticket');
  if ((await onVisibleBoards(ctx, known, [blocker])).length === 0) throw notFound('Ticket');
  return blocker;
}

/**
 * Walks what the blocker depends on, transitively (one Query per ticket per level, in
 * parallel), looking for the ticket: finding it means the new dependency would close a cycle.
 * Answers the tickets visited (their versions guard the transaction) or the cycle's path.
 */
async function findCycle(ctx: DomainContext, ticket: TicketItem, blocker: TicketItem): Promise<{ visited: Map<string, TicketItem>; path?: string[] }> {
  const visited = new Map<string, TicketItem>([[blocker.ticketId, blocker]]);
  const cameFrom = new Map<string, string>();
  let frontier = [blocker.ticketId];
  while (frontier.length > 0) {
    const next: string[] = [];
    const edges = await Promise.all(frontier.map(async (id) => ({ id, items: await dependencyItemsOf(id, 'blockedBy') })));
    for (const { id, items } of edges) {
      for (const item of items) {
        if (item.otherId === ticket.ticketId) {
          // ticket ← blocker ← … ← id ← ticket: the display ids around the cycle, starting at the ticket.
          const chain = [id];
          while (chain[chain.length - 1] !== blocker.ticketId) chain.push(cameFrom.get(chain[chain.length - 1]!)!);
          const names = await ticketsById(ctx.org.orgId, chain);
          return { visited, path: [ticket.displayId, ...chain.reverse().map((step) => names.get(step)?.displayId ?? step), ticket.displayId] };
        }
        if (visited.has(item.otherId) || cameFrom.has(item.otherId)) continue;
        cameFrom.set(item.otherId, id);
        next.push(item.otherId);
      }
    }
    if (visited.size + next.length > MAX_DEPENDENCY_CHAIN) {
      throw invalidField('blockerId', `The blocker's chain of dependencies reaches more than ${MAX_DEPENDENCY_CHAIN} tickets`);
    }
    const found = await ticketsById(ctx.org.orgId, next);
    // A deleted ticket's dependencies are on their way out (the events function removes them): not followed.
    frontier = next.filter((id) => found.get(id) && !found.get(id)!.isDeleted);
    for (const id of frontier) visited.set(id, found.get(id)!);
  }
  return { visited };
}

/** A version check of a ticket read during the decision: the transaction fails (and is retried) if it changed. */
const unchanged = (e: TransactionEntities, ticket: TicketItem) =>
  guarded(e.ticket.check({ ticketId: ticket.ticketId }).where((attr, op) => op.eq(attr.version, ticket.version)).commit(), () => new LostRace('A ticket of the dependency changed concurrently; retry'));

const mirrorOf = (ticketId: string, blockerId: string) => [
  { ticketId, direction: 'blockedBy' as const, otherId: blockerId },
  { ticketId: blockerId, direction: 'blocks' as const, otherId: ticketId },
];

/**
 * PUT …/dependencies/{blockerId}: the ticket is blocked by the blocker (any live ticket of the
 * organization the caller can see). Idempotent. One transaction writes both sides of the
 * dependency and the ticket (its open-blocker count, a DEPENDENCY_ADDED timeline entry and
 * `ticket.dependency_added`), guarded by the versions of every ticket the cycle check walked,
 * and every write of the ticket moves its version, so concurrent additions can never close a
 * cycle between them. The ticket itself is replaced under the version it was read at only when
 * its readiness changes (its first open blocker); a ticket already blocked, or a closed blocker,
 * moves the count in place (`blockerCountMove`), so additions of different blockers to one
 * ticket do not contend.
 */
export async function addDependency(ctx: DomainContext, boardId: string, ticketId: string, blockerId: string) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const [{ board, ticket }, config] = await Promise.all([loadTicketOnBoard(ctx, boardId, ticketId), loadOrgConfig(ctx.org.orgId)]);
    if (blockerId === ticket.ticketId) throw invalidField('blockerId', 'A ticket cannot depend on itself');
    const [blocker, items] = await Promise.all([loadVisibleBlocker(ctx, blockerId, board), dependencyItemsOf(ticket.ticketId)]);
    const blockerIds = items.filter((item) => item.direction === 'blockedBy').map((item) => item.otherId);
    if (blockerIds.includes(blocker.ticketId)) return presentDependencies(ctx, board, items, config);
    if (blockerIds.length >= MAX_BLOCKERS_PER_TICKET) throw invalidField('blockerId', `A ticket depends on at most ${MAX_BLOCKERS_PER_TICKET} tickets`);
    const { visited, path } = await findCycle(ctx, ticket, blocker);
    if (path) throw new AppError('DEPENDENCY_CYCLE', `${blocker.displayId} already depends on ${ticket.displayId}, directly or through other tickets`, { path });
    const now = ctx.clock.now().toISOString();
    const move = isOpenTicket(blocker) ? 1 : 0;
    // A ticket already blocked (or a closed blocker) keeps its readiness: its count moves in place,
    // and concurrent additions of other blockers do not contend for its version.
    const inPlace = ctx.claimFence === undefined && (move === 0 || (ticket.openBlockerCount ?? 0) >= 1);
    const open = inPlace ? (ticket.openBlockerCount ?? 0) + move : openCount(await ticketsById(ctx.org.orgId, blockerIds), blockerIds) + move;
    const [own, mirror] = mirrorOf(ticket.ticketId, blocker.ticketId);
    const edge = { orgId: ctx.org.orgId, createdById: ctx.actor.userId, createdAt: now };
    await saveTicket(ctx, {
      before: ticket,
      after: { ...ticket, openBlockerCount: open },
      ...(inPlace ? { blockerCountMove: move } : {}),
      derivedEvents: false,
      events: [{ type: 'ticket.dependency_added', data: { ...baseTicketData(ticket), blockerId: blocker.ticketId } }],
      timeline: [{ kind: 'DEPENDENCY_ADDED', details: { blockerId: blocker.ticketId, blockerDisplayId: blocker.displayId } }],
      related: (e) => [
        ...[...visited.values()].map((seen) => unchanged(e, seen)),
        guarded(e.dependency.create({ ...own!, ...edge }).commit(), () => new LostRace('The dependency was added concurrently; retry')),
        guarded(e.dependency.create({ ...mirror!, ...edge }).commit(), () => new LostRace('The dependency was added concurrently; retry')),
      ],
    });
    return presentDependencies(ctx, board, [...items, { ...own!, ...edge }], config);
  });
}

/**
 * DELETE …/dependencies/{blockerId}: 204, or 404 when the ticket had no such dependency. When
 * the blocker was its last open one, the ticket is unblocked in the same transaction.
 */
export async function removeDependency(ctx: DomainContext, boardId: string, ticketId: string, blockerId: string): Promise<void> {
  requirePermission(ctx, 'tickets:edit');
  await retryLostRaces(async () => {
    const { board, ticket } = await loadTicketOnBoard(ctx, boardId, ticketId);
    const items = await dependencyItemsOf(ticket.ticketId, 'blockedBy');
    if (!items.some((item) => item.otherId === blockerId)) throw notFound('Dependency');
    const remaining = items.map((item) => item.otherId).filter((id) => id !== blockerId);
    // A dependency whose blocker stands on a board the caller cannot see is not there for it (404, as listing and adding say).
    const everyBoard = seesEveryBoard(ctx);
    // A ticket that loses an open blocker and keeps another keeps its readiness: its count moves in
    // place. Losing a closed blocker recounts (that blocker's own recount, if still to come, no longer finds this ticket).
    const mayMoveInPlace = ctx.claimFence === undefined && (ticket.openBlockerCount ?? 0) >= 2;
    const blockers = await ticketsById(ctx.org.orgId, everyBoard && !mayMoveInPlace ? remaining : [...remaining, blockerId]);
    const blocker = blockers.get(blockerId);
    if (!everyBoard && blocker && (await onVisibleBoards(ctx, board, [blocker])).length === 0) throw notFound('Dependency');
    const move = isOpenTicket(blocker) ? -1 : 0;
    const inPlace = mayMoveInPlace && move === -1;
    const open = inPlace ? (ticket.openBlockerCount ?? 0) + move : openCount(blockers, remaining);
    const [own, mirror] = mirrorOf(ticket.ticketId, blockerId);
    const unblocked = unblockedBy(ticket, open, blockerId);
    await saveTicket(ctx, {
      before: ticket,
      after: { ...ticket, openBlockerCount: open },
      ...(inPlace ? { blockerCountMove: move } : {}),
      derivedEvents: false,
      events: [{ type: 'ticket.dependency_removed', data: { ...baseTicketData(ticket), blockerId } }, ...unblocked.events],
      timeline: [{ kind: 'DEPENDENCY_REMOVED', details: { blockerId } }, ...unblocked.timeline],
      related: (e) => [
        guarded(e.dependency.delete(own!).where((attr, op) => op.exists(attr.otherId)).commit(), () => new LostRace('The dependency was removed concurrently; retry')),
        e.dependency.delete(mirror!).commit(),
      ],
    });
  });
}
