import * as z from 'zod';
import { idParam, webLink } from '../core/fields.js';
import { IMPACT_LEVELS, PRIORITIES, RESOLUTION_TYPES } from '../db/entities/index.js';
import { groupDigits } from '../core/text.js';
import { HANDOFF_LIMITS } from './record/handoffs.js';

/*
 * The input fields of ticket operations, one definition each: the REST routes
 * (lib/tickets/http/schemas.ts) and the MCP tools (lib/mcp/tools.ts) build their schemas from
 * these, so a limit, a default or a clamp is the same on both.
 */

/** ISO 8601 timestamp or date (`YYYY-MM-DD`), stored as a UTC timestamp with milliseconds. */
export const timestamp = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'Must be an ISO 8601 date or timestamp' })
  .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00.000Z` : value).toISOString());

export const title = z.string().trim().min(1, 'Must not be empty').max(200, 'At most 200 characters');
export const description = z.string().max(50_000, 'At most 50,000 characters');
export const reason = z.string().max(500, 'At most 500 characters');

/** Words to find in titles and descriptions (lists and the search tool). */
export const ticketSearch = z.string().max(200, 'At most 200 characters');

/** A lease length in seconds: clamped by the domain to 60–14,400 (out-of-range values are not refused). */
export const leaseSeconds = z.number().finite().meta({ description: 'Seconds; clamped to 60–14,400', default: 1800 });

const text = (max: number) => z.string().max(max, `At most ${groupDigits(max)} characters`);

/** A handoff's fields: what a holder leaves for the next one. */
export const handoffFields = {
  summary: text(HANDOFF_LIMITS.summary).min(1, 'Required').meta({ description: 'What was done and where it stands' }),
  nextSteps: text(HANDOFF_LIMITS.nextSteps),
  branch: text(HANDOFF_LIMITS.branch),
  links: z.array(webLink(2000)).max(HANDOFF_LIMITS.links, `At most ${HANDOFF_LIMITS.links} links`),
};

/** What a holder leaves for the next one when it releases its claim. */
export const handoffBody = z
  .strictObject({
    summary: handoffFields.summary,
    nextSteps: handoffFields.nextSteps.optional(),
    branch: handoffFields.branch.optional(),
    links: handoffFields.links.optional(),
  })
  .meta({ description: 'Where the next holder starts: listed by GET …/handoffs and carried by the next claim' });

/** A heartbeat's progress note. */
export const heartbeatNote = text(HANDOFF_LIMITS.note).meta({ description: "The lease's latest progress note; handed on if the lease lapses" });

/** A run's usage (docs/fleet-control.md, "Spend"): integers; cost in US dollars × 10⁶. One schema for REST and MCP. */
export const usage = z
  .strictObject({
    model: z.string().trim().min(1).max(100).optional(),
    inputTokens: z.number().int().min(0).max(1e12).optional(),
    outputTokens: z.number().int().min(0).max(1e12).optional(),
    cacheReadTokens: z.number().int().min(0).max(1e12).optional(),
    costMicros: z.number().int().min(0).max(1e12),
  })
  .meta({ description: 'What the run cost (costMicros: US dollars × 10⁶) and used' });

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

const settable = () => z.strictObject(ticketFields()).partial();

/** What creating a ticket takes (the tickets.create operation, lib/tickets/operations.ts). */
export const createTicketInput = () =>
  settable().extend({
    title,
    estimatedHours: z.number().min(0.1, 'At least 0.1').max(100_000).nullable().optional(),
  });

/** What updating a ticket takes (tickets.update). */
export const patchTicketInput = () =>
  settable().extend({
    title: title.optional(),
    estimatedHours: z.number().min(0).max(100_000).nullable().optional(),
    timeSpent: z.number().min(0).max(100_000).nullable().optional(),
    statusChangeReason: reason.optional(),
    expectedUpdatedAt: z.iso
      .datetime({ offset: true, error: 'Must be an ISO 8601 timestamp' })
      .optional()
      .meta({ description: 'The updatedAt the editor read: when the ticket changed since, 409 STALE_UPDATE and nothing is written' }),
  });
