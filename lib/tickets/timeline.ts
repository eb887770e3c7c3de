import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import type { TimelineEntryItem } from '../db/entities/index.js';
import { pageOf } from '../core/pages.js';
import { loadTicketOnBoard } from './access.js';
import { loadOrgConfig, type OrgConfig } from './config.js';

/**
 * GET …/tickets/{ticketId}/timeline: what happened to the ticket, oldest first (creation,
 * status changes with their reason, assignments, moves; claims as they arrive). The access
 * check, the timeline Query and the organization's statuses are read in parallel; the
 * timeline is used only once the ticket proved visible.
 */
export async function listTimeline(ctx: DomainContext, boardId: string, ticketId: string, query: { page: number; limit: number }) {
  const [, entries, config] = await Promise.all([
    loadTicketOnBoard(ctx, boardId, ticketId),
    db().entities.timelineEntry.query.byTicket({ ticketId }).go({ pages: 'all' }),
    loadOrgConfig(ctx.org.orgId),
  ]);
  const ordered = entries.data.sort((a, b) => a.entryId.localeCompare(b.entryId));
  return pageOf(
    ordered.map((entry) => presentTimelineEntry(entry, config)),
    query.page,
    query.limit,
  );
}

export function presentTimelineEntry(entry: TimelineEntryItem, config: OrgConfig) {
  return {
    id: entry.entryId,
    kind: entry.kind,
    actor: entry.actorId ? { id: entry.actorId, name: entry.actorName ?? '' } : null,
    details: withStatusNames((entry.details ?? {}) as Record<string, unknown>, config),
    createdAt: entry.createdAt,
  };
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
