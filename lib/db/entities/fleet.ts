import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * A quarantined ticket, listed in its organization's partition (`GET /api/v1/issues?quarantined=true`
 * reads these, never the boards): put in the transaction that quarantines the ticket, deleted in
 * the one that lifts it. The ticket item is the truth; a reader skips an entry whose ticket is
 * gone or no longer quarantined.
 */
export const QuarantineEntry = (config?: EntityConfiguration) =>
  new Entity({
    model: { entity: 'quarantineEntry', version: '1', service: 'wm' },
    attributes: {
      orgId: { type: 'string', required: true },
      ticketId: { type: 'string', required: true },
      boardId: { type: 'string', required: true },
      since: { type: 'string', required: true },
      lapses: { type: 'number', required: true },
    },
    indexes: {
      byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['ticketId'] } },
    },
  }, config);
export type QuarantineEntryItem = EntityItem<ReturnType<typeof QuarantineEntry>>;

export const SPEND_DIMENSIONS = ['agent', 'board', 'milestone', 'day'] as const;
export type SpendDimension = (typeof SPEND_DIMENSIONS)[number];

/**
 * What runs cost, per organization, UTC day and one grouping (`dimension`): the agent (or
 * person) that reported, the board, the milestone (`none` without one), or the whole
 * organization (`day`, key `-`). Every report or heartbeat that carries usage ADDs to its four
 * items in the transaction of its own ticket write (an upsert), so totals are exact and never
 * recounted. A busy board's or the organization's item is spread over SPEND_SHARDS items
 * (`<key>#<shard>`), so concurrent reports rarely touch the same one; readers sum them.
 * `GET /api/v1/spend` reads one dimension's days in range (one Query, its pages).
 */
export const SPEND_SHARDS = 4;
export const SpendDay = (config?: EntityConfiguration) =>
  new Entity({
    model: { entity: 'spendDay', version: '1', service: 'wm' },
    attributes: {
      orgId: { type: 'string', required: true },
      dimension: { type: SPEND_DIMENSIONS, required: true },
      /** UTC calendar day, YYYY-MM-DD. */
      day: { type: 'string', required: true },
      /** `<id>#<shard>`: the agent, board or milestone id (`none`, `-`) and its shard. */
      key: { type: 'string', required: true },
      /** The agent's or board's name at the latest report (display only). */
      name: { type: 'string' },
      costMicros: { type: 'number' },
      inputTokens: { type: 'number' },
      outputTokens: { type: 'number' },
      cacheReadTokens: { type: 'number' },
      runs: { type: 'number' },
    },
    indexes: {
      byDimension: { pk: { field: 'pk', composite: ['orgId', 'dimension'] }, sk: { field: 'sk', composite: ['day', 'key'] } },
    },
  }, config);
export type SpendDayItem = EntityItem<ReturnType<typeof SpendDay>>;

/**
 * A board's or an agent's spend in one UTC calendar month, against its `monthlyBudgetMicros`:
 * ADDed in the same transaction as the day items; one GetItem tells claim-next whether the
 * budget is spent. `warnedAt` is set (once, under a condition) when 80 % was first passed.
 */
export const SpendMonth = (config?: EntityConfiguration) =>
  new Entity({
    model: { entity: 'spendMonth', version: '1', service: 'wm' },
    attributes: {
      orgId: { type: 'string', required: true },
      scope: { type: ['agent', 'board'] as const, required: true },
      subjectId: { type: 'string', required: true },
      /** UTC month, YYYY-MM. */
      month: { type: 'string', required: true },
      costMicros: { type: 'number' },
      warnedAt: { type: 'string' },
    },
    indexes: {
      bySubject: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['scope', 'subjectId', 'month'] } },
    },
  }, config);
export type SpendMonthItem = EntityItem<ReturnType<typeof SpendMonth>>;
