import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import type { TimelineEntryItem } from '../db/entities/index.js';
import { queryCount, type QueryParams } from '../db/projected.js';
import { pageWithTotal } from '../core/pages.js';
import { loadTicketOnBoard } from './access.js';
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
  const [, head, total, config] = await Promise.all([
    loadTicketOnBoard(ctx, boardId, ticketId),
    entries.go({ count: start + query.limit }),
    queryCount(entries.params() as QueryParams, { expression: '', names: {}, values: {} }),
    loadOrgConfig(ctx.org.orgId),
  ]);
  return pageWithTotal(head.data.slice(start).map((entry) => presentTimelineEntry(entry, config)), total, query.page, query.limit);
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
