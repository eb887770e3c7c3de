import { positionKeyOf, type StatusCategory, type TicketItem } from '../../db/entities/index.js';
import type { OrgConfig } from '../config.js';
import { hasLiveClaim } from '../record/lease.js';
import { matchesSearch } from '../search/text.js';

/**
 * Every filter of the ticket lists (the API reference, GET of a board's tickets and of /issues). One implementation, used by the
 * board list, the cross-board list and the MCP tools.
 */
export interface TicketFilters {
  statusIds?: string[];
  assigneeId?: string;
  milestoneId?: string;
  customerId?: string;
  needsReassignment?: boolean;
  typeIds?: string[];
  labelIds?: string[];
  search?: string;
  includePlanning?: boolean;
  includeArchived?: boolean;
  overdue?: boolean;
  noDueDate?: boolean;
  dueBefore?: string;
  dueAfter?: string;
  impactLevels?: string[];
  priorities?: string[];
  externalReference?: string;
  /** No live claim and not in a FINAL status. */
  claimable?: boolean;
  /** Narrows to tickets assigned to the caller. */
  assignedToMe?: boolean;
  /** Tickets currently claimed by this user id (`me` already resolved by the caller; null matches nothing). */
  claimedBy?: string | null;
}

export interface FilterContext {
  config: OrgConfig;
  now: Date;
  callerId: string;
}

/**
 * The one rule of which statuses a list shows when no status is asked for by id:
 * ACTIVE ones; PLANNING ones with includePlanning; FINAL ones (and any status marked
 * `isFinal`) with includeArchived. Per ticket (`matchesFilters`), per column (`columnsShown`)
 * and per index range (`categoriesShown`) alike.
 */
export function isStatusShown(status: { category: StatusCategory; isFinal?: boolean }, filters: Pick<TicketFilters, 'includePlanning' | 'includeArchived'>): boolean {
  if (status.category === 'PLANNING') return filters.includePlanning === true;
  if (status.category === 'FINAL' || status.isFinal) return filters.includeArchived === true;
  return true;
}

/**
 * Whether an index entry (a facet's or a search term's: status and archived flag) is on a list
 * by its status and the category flags: `matchesFilters`' rules for these two fields.
 */
export function entryShown(entry: { statusId: string; isArchived: boolean }, filters: TicketFilters, config: OrgConfig): boolean {
  const status = config.status(entry.statusId);
  if (filters.statusIds?.length) {
    if (!filters.statusIds.includes(entry.statusId)) return false;
  } else if (!isStatusShown({ category: status?.category ?? 'ACTIVE', isFinal: status?.isFinal }, filters)) return false;
  return !entry.isArchived || filters.includeArchived === true;
}

export function matchesFilters(ticket: TicketItem, filters: TicketFilters, context: FilterContext): boolean {
  if (ticket.isDeleted) return false;
  const status = context.config.status(ticket.statusId);
  const category = status?.category ?? 'ACTIVE';
  const explicitStatus = (filters.statusIds?.length ?? 0) > 0;
  if (explicitStatus && !filters.statusIds!.includes(ticket.statusId)) return false;
  // PLANNING excluded unless includePlanning; archived or done excluded unless includeArchived.
  // A status asked for by id is shown whatever its category, and so is every live claim of a
  // holder (`claimedBy` answers "what does this agent hold", whatever the ticket's state).
  const everyState = filters.claimedBy != null;
  if (!everyState && !explicitStatus && !isStatusShown({ category, isFinal: status?.isFinal }, filters)) return false;
  if (!everyState && ticket.isArchived && !filters.includeArchived) return false;
  if (filters.assigneeId !== undefined && ticket.assigneeId !== filters.assigneeId) return false;
  if (filters.assignedToMe && ticket.assigneeId !== context.callerId) return false;
  if (filters.customerId !== undefined && ticket.customerId !== filters.customerId) return false;
  // A deleted milestone keeps no tickets, also before its clearing job has reached them.
  if (filters.milestoneId !== undefined && (ticket.milestoneId !== filters.milestoneId || !context.config.milestone(filters.milestoneId))) return false;
  if (filters.needsReassignment !== undefined && ticket.needsReassignment !== filters.needsReassignment) return false;
  if (filters.typeIds?.length && !context.config.typesMatching(filters.typeIds).has(ticket.typeId)) return false;
  // Ids of deleted labels may linger on tickets until their next write; they match nothing.
  if (filters.labelIds?.length && !(ticket.labelIds ?? []).some((labelId) => filters.labelIds!.includes(labelId) && context.config.label(labelId) !== undefined)) return false;
  if (filters.impactLevels?.length && (!ticket.impactLevel || !filters.impactLevels.includes(ticket.impactLevel))) return false;
  if (filters.priorities?.length && !filters.priorities.includes(ticket.priority)) return false;
  // Words and word prefixes of the title and description, or the display id (search/text.ts).
  if (filters.search && !matchesSearch(ticket, filters.search)) return false;
  if (filters.externalReference && !(ticket.externalReference ?? '').toLowerCase().includes(filters.externalReference.toLowerCase())) return false;
  if (filters.noDueDate && ticket.dueDate) return false;
  if (filters.overdue && (!ticket.dueDate || Date.parse(ticket.dueDate) >= context.now.getTime() || category === 'FINAL')) return false;
  if (filters.dueBefore && (!ticket.dueDate || Date.parse(ticket.dueDate) >= Date.parse(filters.dueBefore))) return false;
  if (filters.dueAfter && (!ticket.dueDate || Date.parse(ticket.dueDate) <= Date.parse(filters.dueAfter))) return false;
  if (filters.claimable && (hasLiveClaim(ticket, context.now) || category === 'FINAL')) return false;
  if (filters.claimedBy !== undefined) {
    const holder = ticket.claimedById;
    if (filters.claimedBy === null || !hasLiveClaim(ticket, context.now) || holder !== filters.claimedBy) return false;
  }
  return true;
}

/**
 * Board order: status (organization order), then the column order of the byBoard index —
 * `positionKey`, then ticket id, compared as the index compares them (lower-cased keys, code
 * unit order) — so a list read column by column from the index (list.ts fast path) and a
 * list sorted here agree item for item.
 */
export function sortTickets<T extends ColumnOrdered>(tickets: T[], config: OrgConfig): T[] {
  const keyed = tickets.map((ticket) => ({ ticket, rank: config.statusRank(ticket.statusId), ...columnKeys(ticket) }));
  keyed.sort((a, b) => a.rank - b.rank || compareKeys(a.position, b.position) || compareKeys(a.id, b.id));
  return keyed.map((entry) => entry.ticket);
}

/** Tickets of one column in the byBoard index's order within it (`sortTickets` without the status rank). */
export function sortInColumn<T extends ColumnOrdered>(tickets: T[]): T[] {
  const keyed = tickets.map((ticket) => ({ ticket, ...columnKeys(ticket) }));
  keyed.sort((a, b) => compareKeys(a.position, b.position) || compareKeys(a.id, b.id));
  return keyed.map((entry) => entry.ticket);
}

type ColumnOrdered = Pick<TicketItem, 'statusId' | 'ticketId'> & { positionKey?: string; position?: number };

const columnKeys = (ticket: ColumnOrdered) => ({ position: ticket.positionKey ?? positionKeyOf(ticket.position ?? 0), id: ticket.ticketId.toLowerCase() });

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
