import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * `subjectId` prefix of the organization-wide items of a day (agents use their user id). The
 * organization's counters are spread over ORG_SUBJECT_SHARDS items (`org#0` …), so concurrent
 * closings in one organization rarely touch the same item; readers sum them.
 */
export const ORG_SUBJECT = 'org';
export const ORG_SUBJECT_SHARDS = 4;
export const isOrgSubject = (subjectId: string): boolean => subjectId === ORG_SUBJECT || subjectId.startsWith(`${ORG_SUBJECT}#`);

/**
 * Maintained aggregates behind the agents overview (docs/agents.md): one item per organization,
 * UTC day and subject (the organization as a whole, or one agent). Writers ADD to the
 * counters inside the transaction of the change they count (`update` … `add`, an upsert), so
 * the figures are exact; the overview reads the last 31 days of an organization in one Query
 * (at most 29 items a day: 25 agents and 4 organization shards). TTL removes an item 90 days after its day.
 *
 * Counters: organization — ticketsClosed, ticketsClosedByAgents (a ticket entering a FINAL
 * status), minutes booked by agents and people (time tracking); agent — claimsTaken (a new lease:
 * a claim or claim-next), claimsExpired (a lease that lapsed), reports by outcome (MCP `tickets_report`), approvedMinutes (time tracking).
 */
export const ActivityDay = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'activityDay', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    /** UTC calendar day, YYYY-MM-DD. */
    day: { type: 'string', required: true },
    subjectId: { type: 'string', required: true },
    ticketsClosed: { type: 'number' },
    ticketsClosedByAgents: { type: 'number' },
    agentMinutes: { type: 'number' },
    humanMinutes: { type: 'number' },
    claimsTaken: { type: 'number' },
    /** Agents: what their reported runs cost (US dollars × 10⁶). */
    costMicros: { type: 'number' },
    claimsExpired: { type: 'number' },
    reportsDone: { type: 'number' },
    reportsBlocked: { type: 'number' },
    reportsNeedsReview: { type: 'number' },
    reportsPartial: { type: 'number' },
    reportsUnknown: { type: 'number' },
    approvedMinutes: { type: 'number' },
    ttl: { type: 'number' },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['day', 'subjectId'] } },
  },
}, config);
export type ActivityDayItem = EntityItem<ReturnType<typeof ActivityDay>>;
export type ActivityCounter = Exclude<keyof ActivityDayItem, 'orgId' | 'day' | 'subjectId' | 'ttl'>;
