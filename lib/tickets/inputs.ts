import * as z from 'zod';
import { webLink } from '../core/fields.js';
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
