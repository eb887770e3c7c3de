import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { NO_KEY } from './ticket.js';

export const TIME_ENTRY_STATES = ['PENDING', 'APPROVED', 'REJECTED'] as const;
export type TimeEntryState = (typeof TIME_ENTRY_STATES)[number];
export const SYNC_STATUSES = ['PENDING', 'SYNCED', 'FAILED'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];
export const TIME_ENTRY_SOURCES = ['MANUAL', 'TIMER', 'MCP'] as const;

/**
 * A time entry (docs/features.md, Time tracking): minutes booked by one person or agent on one day, on a ticket or
 * on a booking item. Every change replaces the whole item guarded by `version`, so the sparse
 * indexes below are always derived from the item as it is.
 *
 * - byId (primary): the organization and the entry id, so another organization's id finds nothing.
 * - byUser (gsi1): a user's entries by date (own lists, recent, today).
 * - byBoard (gsi2): a board's entries by date. Sparse: booking-item entries carry no board.
 * - pendingByDate (gsi5): the organization's PENDING entries by date, the approvers' queue in the
 *   order the list shows it (newest first, from the index's end). Sparse.
 * - byTicketDate (gsi6): a ticket's entries by date, its list in the order it shows them. Sparse:
 *   booking-item entries carry no ticket.
 *
 * Agent entries keep what the agent reported (`rawMinutes`) and the factor applied
 * (`timeFactor`); `durationMinutes` is what is booked. Human entries have no factor.
 */
export const TimeEntry = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'timeEntry', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    entryId: { type: 'string', required: true },
    userId: { type: 'string', required: true },
    userName: { type: 'string', required: true },
    isAgent: { type: 'boolean', required: true },
    ticketId: { type: 'string' },
    /** The board the ticket was on when the time was booked (the entry stays with it). */
    boardId: { type: 'string' },
    bookingItemId: { type: 'string' },
    /** Index keys of byBoard / byTicketDate (derived): NO_KEY for a booking-item entry, which those sparse indexes leave out. */
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    boardKey: { type: 'string', watch: ['boardId'], set: (_value?: string, item?: any) => item?.boardId ?? NO_KEY },
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    ticketKey: { type: 'string', watch: ['ticketId'], set: (_value?: string, item?: any) => item?.ticketId ?? NO_KEY },
    durationMinutes: { type: 'number', required: true },
    rawMinutes: { type: 'number', required: true },
    timeFactor: { type: 'number' },
    description: { type: 'string', required: true, default: '' },
    /** YYYY-MM-DD, the day the work was done. */
    date: { type: 'string', required: true },
    state: { type: TIME_ENTRY_STATES, required: true },
    source: { type: TIME_ENTRY_SOURCES, required: true },
    decidedById: { type: 'string' },
    decidedByName: { type: 'string' },
    decidedAt: { type: 'string' },
    rejectionReason: { type: 'string' },
    /** External sync (absent: never pushed). `syncEventId` names the newest push; older pushes' outcomes are ignored. */
    syncStatus: { type: SYNC_STATUSES },
    syncEventId: { type: 'string' },
    syncedAt: { type: 'string' },
    syncError: { type: 'string' },
    externalId: { type: 'string' },
    billed: { type: 'boolean', required: true, default: false },
    createdAt: { type: 'string', required: true },
    updatedAt: { type: 'string', required: true },
    version: { type: 'number', required: true },
  },
  indexes: {
    byId: { pk: { field: 'pk', composite: ['orgId', 'entryId'] }, sk: { field: 'sk', composite: [] } },
    byUser: {
      index: 'gsi1',
      pk: { field: 'gsi1pk', composite: ['orgId', 'userId'] },
      sk: { field: 'gsi1sk', composite: ['date', 'entryId'] },
    },
    byBoard: {
      index: 'gsi2',
      condition: (attr) => attr.boardKey !== undefined && attr.boardKey !== NO_KEY,
      pk: { field: 'gsi2pk', composite: ['orgId', 'boardKey'] },
      sk: { field: 'gsi2sk', composite: ['date', 'entryId'] },
    },
    byTicketDate: {
      index: 'gsi6',
      condition: (attr) => attr.ticketKey !== undefined && attr.ticketKey !== NO_KEY,
      pk: { field: 'gsi6pk', composite: ['orgId', 'ticketKey'] },
      sk: { field: 'gsi6sk', composite: ['date', 'entryId'] },
    },
    pendingByDate: {
      index: 'gsi5',
      condition: (attr) => attr.state === 'PENDING',
      pk: { field: 'gsi5pk', composite: ['orgId'] },
      sk: { field: 'gsi5sk', composite: ['date', 'entryId'] },
    },
  },
}, config);
export type TimeEntryItem = EntityItem<ReturnType<typeof TimeEntry>>;

/**
 * A running timer: one per user and target (a ticket or a booking item), so starting a second
 * timer on the same ticket is a failed conditional create. A user's timers are one partition.
 */
export const Timer = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'timer', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    userId: { type: 'string', required: true },
    /** The ticket id or the booking item id the timer runs on. */
    target: { type: 'string', required: true },
    timerId: { type: 'string', required: true },
    ticketId: { type: 'string' },
    boardId: { type: 'string' },
    bookingItemId: { type: 'string' },
    startedAt: { type: 'string', required: true },
  },
  indexes: {
    byUser: { pk: { field: 'pk', composite: ['orgId', 'userId'] }, sk: { field: 'sk', composite: ['target'] } },
  },
}, config);
export type TimerItem = EntityItem<ReturnType<typeof Timer>>;

/** Something time can be booked on instead of a ticket (an internal activity, a cost centre). */
export const BookingItem = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'bookingItem', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    bookingItemId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    externalId: { type: 'string' },
    /** Boards it is offered on; empty: every board. */
    boardIds: { type: 'list', items: { type: 'string' }, required: true, default: () => [] },
    isActive: { type: 'boolean', required: true, default: true },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['bookingItemId'] } },
  },
}, config);
export type BookingItemItem = EntityItem<ReturnType<typeof BookingItem>>;

/**
 * An agent's booked minutes (PENDING plus APPROVED) of one ISO week (UTC): the counter its
 * weekly hours cap is enforced on, changed with a condition in the transaction of every entry
 * change, so concurrent entries can never pass the cap together.
 */
export const AgentWeek = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'agentWeek', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    agentId: { type: 'string', required: true },
    /** ISO week, e.g. 2026-W48. */
    week: { type: 'string', required: true },
    minutes: { type: 'number' },
  },
  indexes: {
    byAgent: { pk: { field: 'pk', composite: ['orgId', 'agentId'] }, sk: { field: 'sk', composite: ['week'] } },
  },
}, config);
export type AgentWeekItem = EntityItem<ReturnType<typeof AgentWeek>>;

/**
 * The organization's external time-booking endpoint (at most one). Its signing secret is
 * sealed like a webhook endpoint's: recoverable to sign pushes, shown once.
 */
export const TimeSyncEndpoint = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'timeSyncEndpoint', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    endpointId: { type: 'string', required: true },
    url: { type: 'string', required: true },
    sealedSecret: { type: 'string', required: true },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
export type TimeSyncEndpointItem = EntityItem<ReturnType<typeof TimeSyncEndpoint>>;

/**
 * The time tracked on one ticket, kept in the transaction of every entry change (lib/time/aggregates.ts),
 * so a ticket's summary reads these items, never its entries: one item `#total` with each
 * state's entry count and minutes, and one per person or agent (`userKey` = user id) with the
 * count and minutes of their PENDING and APPROVED entries and their name as of their latest
 * entry write. One Query of the ticket's partition reads them all.
 */
export const TicketTime = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'ticketTime', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    ticketId: { type: 'string', required: true },
    userKey: { type: 'string', required: true },
    pendingCount: { type: 'number' },
    pendingMinutes: { type: 'number' },
    approvedCount: { type: 'number' },
    approvedMinutes: { type: 'number' },
    rejectedCount: { type: 'number' },
    rejectedMinutes: { type: 'number' },
    count: { type: 'number' },
    minutes: { type: 'number' },
    name: { type: 'string' },
    isAgent: { type: 'boolean' },
  },
  indexes: {
    byTicket: { pk: { field: 'pk', composite: ['orgId', 'ticketId'] }, sk: { field: 'sk', composite: ['userKey'] } },
  },
}, config);
export type TicketTimeItem = EntityItem<ReturnType<typeof TicketTime>>;

/** The `userKey` of a ticket's totals item. */
export const TICKET_TIME_TOTAL = '#total';
