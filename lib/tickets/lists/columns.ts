import type { ColumnCountItem, StatusItem } from '../../db/entities/index.js';
import type { OrgConfig } from '../config.js';
import { isStatusShown, type TicketFilters } from './filters.js';

/**
 * The status columns a list shows, in list order (organization status order): the statuses
 * asked for by id (any category), or those `matchesFilters` lets through without a status
 * filter: ACTIVE, PLANNING with includePlanning, FINAL with includeArchived, and a status
 * marked `isFinal` only with includeArchived.
 */
export function columnsShown(config: OrgConfig, filters: TicketFilters): StatusItem[] {
  if (filters.statusIds?.length) {
    const wanted = new Set(filters.statusIds);
    return config.statuses.filter((status) => wanted.has(status.statusId));
  }
  return config.statuses.filter((status) => isStatusShown(status, filters));
}

/** Live tickets of a column the list shows (archived ones only with includeArchived). */
export const shownCount = (count: ColumnCountItem | undefined, includeArchived: boolean): number =>
  count ? Math.max(0, count.total - (includeArchived ? 0 : count.archived)) : 0;
