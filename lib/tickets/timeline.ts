import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { queryCount, type QueryParams } from '../db/projected.js';
import { pageWithTotal } from '../core/pages.js';
import type { BoardItem, TimelineEntryItem } from '../db/entities/index.js';
import { loadTicketOnBoard, onVisibleBoards, seesEveryBoard } from './access.js';
import { ticketsById } from './record/edges.js';
import { loadOrgConfig, type OrgConfig } from './config.js';

/**
 * GET …/tickets/{ticketId}/timeline: what happened to the ticket, oldest first (creation,
 * status changes with their reason, assignments, moves; claims as they arrive). The entries are
 * kept in that order (by entry id), so only those up to the page's end are read, with the exact
 * total counted beside them (DynamoDB sends back a number), in parallel with the access check
 * and the organization's statuses; the entries are used only once the ticket proved visible.
 */
export async function listTimeline(ctx: DomainContext, boardId: string, ticketId: string, query: { page: number; limit: number }) {
  const start = (query.page - 1) * query.limit;
  const entries = db().entities.timelineEntry.query.byTicket({ ticketId });
  const [{ board }, head, total, config] = await Promise.all([
    loadTicketOnBoard(ctx, boardId, ticketId),
    entries.go({ count: start + query.limit }),
    queryCount(entries.params() as QueryParams, { expression: '', names: {}, values: {} }),
    loadOrgConfig(ctx.org.orgId),
  ]);
  const page = head.data.slice(start);
  const hidden = await hiddenTickets(ctx, board, page);
  return pageWithTotal(page.map((entry) => presentTimelineEntry(entry, config, hidden)), total, query.page, query.limit);
}

/** Details fields naming another ticket (a blocker, a parent), each with the field holding its display id. */
const TICKET_REFERENCES = [
  ['blockerId', 'blockerDisplayId'],
  ['lastBlockerId', undefined],
  ['parentTicketId', 'parentDisplayId'],
  ['formerParentTicketId', 'formerParentDisplayId'],
] as const;

/**
 * The tickets these entries name that stand on boards the caller cannot see (a board-limited
 * token, a private board): their entries are shown without naming them. Read (the tickets, then
 * their boards) only when the page names another ticket and the caller may not see every board.
 */
async function hiddenTickets(ctx: DomainContext, board: BoardItem, entries: TimelineEntryItem[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (const entry of entries) {
    const details = (entry.details ?? {}) as Record<string, unknown>;
    for (const [idField] of TICKET_REFERENCES) if (typeof details[idField] === 'string') named.add(details[idField]);
  }
  if (named.size === 0 || seesEveryBoard(ctx)) return new Set();
  const found = await ticketsById(ctx.org.orgId, [...named]);
  const visible = new Set((await onVisibleBoards(ctx, board, [...found.values()])).map((ticket) => ticket.ticketId));
  return new Set([...named].filter((id) => !visible.has(id)));
}

export function presentTimelineEntry(entry: TimelineEntryItem, config: OrgConfig, hidden: ReadonlySet<string> = new Set()) {
  return {
    id: entry.entryId,
    kind: entry.kind,
    // A person is named as ever; an agent's entry also says whose agent it is, its client and the lease it wrote under.
    actor: !entry.actorId
      ? null
      : entry.actorIsAgent
        ? { id: entry.actorId, name: entry.actorName ?? '', isAgent: true as const, ownerId: entry.actorOwnerId ?? null, client: entry.actorClient ?? null }
        : { id: entry.actorId, name: entry.actorName ?? '' },
    ...(entry.claimCount !== undefined ? { claimCount: entry.claimCount } : {}),
    details: withoutHidden(withStatusNames((entry.details ?? {}) as Record<string, unknown>, config), hidden),
    createdAt: entry.createdAt,
  };
}

/** A ticket the caller cannot see is named by neither id nor display id (null, with `hidden: true`). */
function withoutHidden(details: Record<string, unknown>, hidden: ReadonlySet<string>): Record<string, unknown> {
  if (hidden.size === 0) return details;
  const shown = { ...details };
  for (const [idField, displayField] of TICKET_REFERENCES) {
    const id = details[idField];
    if (typeof id !== 'string' || !hidden.has(id)) continue;
    shown[idField] = null;
    if (displayField) shown[displayField] = null;
    shown.hidden = true;
  }
  return shown;
}

/** Status ids in the details gain their current names (null once a status was deleted). */
function withStatusNames(details: Record<string, unknown>, config: OrgConfig): Record<string, unknown> {
  const named = { ...details };
  for (const [idField, nameField] of [['statusId', 'statusName'], ['fromStatusId', 'fromStatusName'], ['toStatusId', 'toStatusName']] as const) {
    const statusId = details[idField];
    if (typeof statusId === 'string') named[nameField] = config.status(statusId)?.name ?? null;
  }
  return named;
}
