import * as z from 'zod';
import { IMPACT_LEVELS, PRIORITIES } from '../../db/entities/index.js';
import { idParam, pageQuery, queryBoolean, commaSeparated } from '../../http/validation.js';

import { ticketSearch, timestamp } from '../inputs.js';

export { description, handoffBody, heartbeatNote, leaseSeconds, reason, ticketSearch, timestamp, title, usage } from '../inputs.js';

/** Query parameters of the ticket lists (the API reference, GET of a board's tickets and of /issues), built with the list queries on first use. */
export const listFilterQuery = () => ({
  ...pageQuery(20, 100),
  statusId: commaSeparated.optional(),
  assigneeId: idParam.optional(),
  milestoneId: idParam.optional(),
  customerId: idParam.optional(),
  needsReassignment: queryBoolean.optional(),
  typeId: commaSeparated.optional(),
  labelId: commaSeparated.optional(),
  search: ticketSearch.optional(),
  includePlanning: queryBoolean.optional(),
  includeArchived: queryBoolean.optional(),
  overdue: queryBoolean.optional(),
  noDueDate: queryBoolean.optional(),
  dueBefore: timestamp.optional(),
  dueAfter: timestamp.optional(),
  impactLevel: commaSeparated.pipe(z.array(z.enum(IMPACT_LEVELS))).optional(),
  priority: commaSeparated.pipe(z.array(z.enum(PRIORITIES))).optional(),
  externalReference: z.string().max(200).optional(),
});

/** Maps the query parameters onto the shared filter object. */
export function toFilters(query: z.infer<z.ZodObject<ReturnType<typeof listFilterQuery>>>) {
  return {
    page: query.page,
    limit: query.limit,
    statusIds: query.statusId,
    assigneeId: query.assigneeId,
    milestoneId: query.milestoneId,
    customerId: query.customerId,
    needsReassignment: query.needsReassignment,
    typeIds: query.typeId,
    labelIds: query.labelId,
    search: query.search,
    includePlanning: query.includePlanning,
    includeArchived: query.includeArchived,
    overdue: query.overdue,
    noDueDate: query.noDueDate,
    dueBefore: query.dueBefore,
    dueAfter: query.dueAfter,
    impactLevels: query.impactLevel,
    priorities: query.priority,
    externalReference: query.externalReference,
  };
}
