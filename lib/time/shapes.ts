import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';
import { idParam } from '../core/fields.js';
import { SYNC_STATUSES, TIME_ENTRY_SOURCES, TIME_ENTRY_STATES } from '../db/entities/index.js';

/** One entry is one day's work: 1 to 1,440 whole minutes (REST and the MCP tool alike). */
export const entryDurationMinutes = z
  .number()
  .int('Must be a whole number of minutes')
  .min(1, 'At least 1 minute')
  .max(1440, 'At most 1,440 minutes (one day)');

/** What an entry or a timer is booked on: a ticket (its id or display id) or a booking item. */
export const entryTarget = {
  ticketId: idParam.optional().meta({ description: 'The ticket (id or display id); exactly one of ticketId and bookingItemId' }),
  bookingItemId: idParam.optional(),
};

/** What an entry's time was spent on. */
export const entryDescription = z.string().max(500, 'At most 500 characters');

// The pieces below are built with the shapes that use them, on first use (lib/core/shapes.ts says why).
const day = () => z.iso.date().meta({ description: 'A calendar day, YYYY-MM-DD' });

const ticketRef = () =>
  z
    .strictObject({ id: anId, displayId: z.string(), title: z.string(), boardId: anId })
    .nullable()
    .meta({ description: 'The ticket booked on (null for a booking item, or once the ticket is deleted)' });

const bookingItemRef = () =>
  z
    .strictObject({ id: anId, name: z.string(), externalId: z.string().nullable() })
    .nullable()
    .meta({ description: 'The booking item booked on (null for a ticket, or once the item is deleted)' });

export const timeEntryResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      userId: anId,
      user: z.strictObject({ id: anId, name: z.string(), isAgent: z.boolean() }),
      ticketId: anId.nullable(),
      boardId: anId.nullable().meta({ description: 'The board the ticket was on when the time was booked' }),
      ticket: ticketRef(),
      bookingItemId: anId.nullable(),
      bookingItem: bookingItemRef(),
      durationMinutes: z.number().int().min(1).meta({ description: 'Minutes booked (for an agent: as reported × timeFactor, rounded)' }),
      rawDurationMinutes: z.number().int().min(1).meta({ description: 'Minutes as reported' }),
      timeFactor: z.number().nullable().meta({ description: "The agent's time factor applied; null for a person's entry" }),
      description: z.string(),
      date: day(),
      state: z.enum(TIME_ENTRY_STATES).meta({ description: "A person's entries are APPROVED at once; an agent's start PENDING" }),
      source: z.enum(TIME_ENTRY_SOURCES),
      decidedBy: z.strictObject({ id: anId, name: z.string() }).nullable(),
      decidedAt: timestamp.nullable(),
      rejectionReason: z.string().nullable(),
      syncStatus: z.enum(SYNC_STATUSES).nullable().meta({ description: 'External time-booking sync: null when never pushed' }),
      syncedAt: timestamp.nullable(),
      syncError: z.string().nullable().meta({ description: 'Why the newest push failed' }),
      externalId: z.string().nullable().meta({ description: "The time-booking system's id for the entry, from its answer" }),
      billed: z.boolean().meta({ description: 'Billed by the time-booking system: the entry is locked' }),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'TimeEntry' }),
);

export const timerResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      ticketId: anId.nullable(),
      ticket: ticketRef(),
      bookingItemId: anId.nullable(),
      bookingItem: bookingItemRef(),
      startedAt: timestamp,
    })
    .meta({ id: 'Timer' }),
);

export const stopAllResult = z.lazy(() =>
  z.strictObject({
    stopped: z.array(timeEntryResult).meta({ description: 'The entries the stopped timers became' }),
    notStopped: z
      .array(z.strictObject({ timerId: anId, error: z.strictObject({ code: z.string(), message: z.string() }) }))
      .meta({ description: 'Timers that keep running (or were discarded), with the error each met' }),
  }),
);

export const recentResult = z.lazy(() =>
  z.array(
    z.strictObject({
      ticketId: anId.nullable(),
      ticket: ticketRef(),
      bookingItemId: anId.nullable(),
      bookingItem: bookingItemRef(),
      lastDate: day(),
      lastEntry: timeEntryResult,
      entryCount: z.number().int(),
      totalMinutes: z.number().int(),
    }),
  ),
);

export const todayResult = z.lazy(() =>
  z.strictObject({
    date: day().meta({ description: "The caller's today at tzOffset" }),
    tzOffset: z.number().int(),
    totalMinutes: z.number().int(),
    tickets: z.array(
      z.strictObject({
        ticketId: anId.nullable(),
        ticket: ticketRef(),
        bookingItemId: anId.nullable(),
        bookingItem: bookingItemRef(),
        totalMinutes: z.number().int(),
        entries: z.array(timeEntryResult),
      }),
    ),
  }),
);

const stateFigure = () => z.strictObject({ count: z.number().int(), minutes: z.number().int() });

const summaryShape = () => ({
  ticketId: anId,
  totalMinutes: z.number().int().meta({ description: 'PENDING plus APPROVED minutes' }),
  entryCount: z.number().int().meta({ description: 'PENDING plus APPROVED entries' }),
  byUser: z.array(z.strictObject({ userId: anId, name: z.string(), isAgent: z.boolean(), minutes: z.number().int() })),
  byState: z.strictObject({ PENDING: stateFigure(), APPROVED: stateFigure(), REJECTED: stateFigure() }),
});

export const summaryResult = z.lazy(() =>
  z.strictObject(summaryShape()).meta({ id: 'TimeSummary' }),
);

export const budgetSummaryResult = z.lazy(() =>
  z
    .strictObject({
      ...summaryShape(),
      estimatedHours: z.number().nullable(),
      estimatedMinutes: z.number().int().nullable(),
      trackedMinutes: z.number().int(),
      remainingMinutes: z.number().int().nullable().meta({ description: 'Estimate minus tracked, never below 0; null without an estimate' }),
      percentage: z.number().nullable().meta({ description: 'Tracked as a percentage of the estimate (one decimal); null without an estimate' }),
      isOverBudget: z.boolean(),
    })
    .meta({ id: 'TimeBudgetSummary' }),
);

export const bookingItemResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      externalId: z.string().nullable(),
      boardIds: z.array(anId).meta({ description: 'Boards it is offered on; empty: every board' }),
      isActive: z.boolean(),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'BookingItem' }),
);

export const syncEndpointResult = z.lazy(() =>
  z
    .strictObject({ id: anId, url: z.string(), createdAt: timestamp, updatedAt: timestamp })
    .meta({ id: 'TimeSyncEndpoint' }),
);

export const savedSyncEndpointResult = z.lazy(() =>
  z.strictObject({
    id: anId,
    url: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    secret: z.string().optional().meta({ description: 'The signing secret, only when one was issued (a new endpoint, or rotateSecret)' }),
  }),
);
