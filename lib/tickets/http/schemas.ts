import * as z from 'zod';
import { IMPACT_LEVELS, PRIORITIES, RESOLUTION_TYPES } from '../../db/entities/index.js';
import { idParam, pageQuery, queryBoolean, commaSeparated } from '../../http/validation.js';

import { description, reason, ticketSearch, timestamp, title } from '../inputs.js';

export { description, handoffBody, heartbeatNote, leaseSeconds, reason, ticketSearch, timestamp, title, usage } from '../inputs.js';

/**
 * Labels per ticket. Each label is a facet entry (record/facets.ts) and a new one a reference
 * check, all in the ticket's one transaction (at most 100 items): a move re-keys every entry,
 * so 25 labels keep the largest ticket write well inside the limit.
 */
export const MAX_TICKET_LABELS = 25;

/** The settable fields shared by create and update (the API reference), built with the bodies on first use. */
const ticketFields = () => ({
  description,
  statusId: idParam,
  priority: z.enum(PRIORITIES),
  assigneeId: idParam.nullable(),
  typeId: idParam,
  labelIds: z.array(idParam).max(MAX_TICKET_LABELS, `At most ${MAX_TICKET_LABELS} labels`),
  customerId: idParam.nullable(),
  dueDate: timestamp.nullable(),
  startDate: timestamp.nullable(),
  storyPoints: z.number().min(0).max(1000).nullable(),
  externalReference: z.string().max(200, 'At most 200 characters').nullable(),
  impactLevel: z.enum(IMPACT_LEVELS).nullable(),
  milestoneId: idParam.nullable(),
  resolution: z.string().max(2000, 'At most 2,000 characters').nullable(),
  resolutionType: z.enum(RESOLUTION_TYPES).nullable(),
  isArchived: z.boolean(),
});

// The bodies are built on first use (lib/core/shapes.ts says why).
const settable = () => z.strictObject(ticketFields()).partial();

export const createTicketBody = z.lazy(() =>
  settable().extend({
    title,
    estimatedHours: z.number().min(0.1, 'At least 0.1').max(100_000).nullable().optional(),
  }),
);

export const patchTicketBody = z.lazy(() =>
  settable().extend({
    title: title.optional(),
    estimatedHours: z.number().min(0).max(100_000).nullable().optional(),
    timeSpent: z.number().min(0).max(100_000).nullable().optional(),
    statusChangeReason: reason.optional(),
    expectedUpdatedAt: z.iso
      .datetime({ offset: true, error: 'Must be an ISO 8601 timestamp' })
      .optional()
      .meta({ description: 'The updatedAt the editor read: when the ticket changed since, 409 STALE_UPDATE and nothing is written' }),
  }),
);

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
