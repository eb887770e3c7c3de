import * as z from 'zod';
import { authenticated, fromOperation, type Routes, onFirstUse } from '../http/routes.js';
import { decideEntryOp, logTimeOp } from './operations.js';
import { calendarDate, idParam, optionalText, pageQuery, queryBoolean, requiredText, storedUrl } from '../http/validation.js';
import { withTicketRefs } from '../http/ticket-refs.js';
import { TIME_ENTRY_STATES } from '../db/entities/index.js';
import { createBookingItem, deleteBookingItem, listBookingItems, updateBookingItem } from './booking-items.js';
import { createEntry, decideEntry, deleteEntry, resyncEntry, updateEntry } from './entries.js';
import { listBoardEntries, listEntries, listTicketEntries, recentEntries, ticketSummary, ticketSummaryWithBudget, todayByTicket } from './reports.js';
import { deleteSyncEndpoint, getSyncEndpoint, putSyncEndpoint } from './sync.js';
import { listTimers, startTimer, stopAllTimers, stopTimer } from './timers.js';
import {
  bookingItemResult, budgetSummaryResult, recentResult, savedSyncEndpointResult, stopAllResult, summaryResult, syncEndpointResult,
  timeEntryResult, timerResult, todayResult,
  entryDescription, entryDurationMinutes, entryTarget,
} from './shapes.js';

const entryDate = calendarDate;
const description = entryDescription;
const durationMinutes = entryDurationMinutes;
const period = {
  year: z.coerce.number().int().min(1970).max(9999).optional(),
  month: z.coerce.number().int().min(1, 'Between 1 and 12').max(12, 'Between 1 and 12').optional(),
};
const entryParams = z.object({ entryId: idParam });
const timerParams = z.object({ timerId: idParam });
const boardParams = z.object({ boardId: idParam });
const ticketParams = z.object({ boardId: idParam, ticketId: idParam });
const bookingItemParams = z.object({ bookingItemId: idParam });

const OFF = ['TIME_TRACKING_DISABLED'] as const;
const CAP = [...OFF, 'WEEKLY_HOURS_CAP_REACHED'] as const;

/** Routes of the `time-tracking` group (docs/features.md, Time tracking); every route needs time tracking switched on. */
export const timeRoutes: Routes = withTicketRefs({
  'GET /api/v1/time-tracking/timers': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "List the caller's running timers",
      result: z.array(timerResult),
      errors: OFF,
      handler: (ctx) => listTimers(ctx),
    }),
  ),
  'POST /api/v1/time-tracking/timers': onFirstUse(() =>
    authenticated({
      scope: 'write',
      ticketRefs: ['ticketId'],
      summary: 'Start a timer on a ticket or a booking item',
      description: 'One running timer per ticket (or booking item) per person: a second start answers 409 with `details.timerId` of the running one.',
      status: 201,
      result: timerResult,
      errors: [...OFF, 'NOT_FOUND'],
      body: z.strictObject(entryTarget),
      handler: (ctx, { body }) => startTimer(ctx, body),
    }),
  ),
  'POST /api/v1/time-tracking/timers/stop-all': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: "Stop all the caller's timers",
      result: stopAllResult,
      errors: OFF,
      body: z.strictObject({ description: description.optional() }).optional(),
      handler: (ctx, { body }) => stopAllTimers(ctx, body ?? {}),
    }),
  ),
  'POST /api/v1/time-tracking/timers/{timerId}/stop': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Stop a timer: it becomes a time entry',
      description:
        'The entry books the whole minutes the timer ran (at least 1), dated the UTC day it started. An agent\'s entry is PENDING and factored; one that would pass its weekly cap is refused (403) and the timer keeps running.',
      result: timeEntryResult,
      errors: CAP,
      params: timerParams,
      body: z.strictObject({ description: description.optional() }).optional(),
      handler: (ctx, { params, body }) => stopTimer(ctx, params.timerId, body ?? {}),
    }),
  ),
  'GET /api/v1/time-tracking/entries': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List time entries',
      description:
        "The caller's own entries, newest first; `userId` names another person's (time-tracking:approve). An approver's `state=PENDING` without `userId` lists the organization's entries waiting for approval.",
      result: timeEntryResult,
      envelope: 'page',
      errors: OFF,
      query: z.strictObject({
        ...pageQuery(50, 100),
        ...period,
        boardId: idParam.optional(),
        search: z.string().max(200).optional(),
        state: z.enum(TIME_ENTRY_STATES).optional(),
        userId: idParam.optional(),
      }),
      handler: (ctx, { query }) => listEntries(ctx, query),
    }),
  ),
  'POST /api/v1/time-tracking/entries': onFirstUse(() =>
    authenticated({
      ...fromOperation(logTimeOp, { body: true }),
      ticketRefs: ['ticketId'],
      summary: 'Book time',
      description:
        "A person's entry is APPROVED at once. An agent's entry is PENDING until a holder of time-tracking:approve decides it; its minutes are multiplied by the agent's time factor, and it is refused (403 WEEKLY_HOURS_CAP_REACHED) when it would take the agent's PENDING plus APPROVED hours of the ISO week (UTC) past its weekly cap.",
      status: 201,
      result: timeEntryResult,
      handler: (ctx, { body }) => createEntry(ctx, body),
    }),
  ),
  'GET /api/v1/time-tracking/entries/recent': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "The caller's recent work, grouped by ticket",
      result: recentResult,
      errors: OFF,
      query: z.strictObject({ limit: z.coerce.number().int().min(1).max(50).default(10) }),
      handler: (ctx, { query }) => recentEntries(ctx, query),
    }),
  ),
  'GET /api/v1/time-tracking/entries/today-by-ticket': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "The caller's entries of today, grouped by ticket",
      result: todayResult,
      errors: OFF,
      query: z.strictObject({
        tzOffset: z.coerce
          .number()
          .int()
          .min(-840, 'Between -840 and 840 minutes')
          .max(840, 'Between -840 and 840 minutes')
          .default(0)
          .meta({ description: "The caller's offset from UTC in minutes, east positive (+60 for UTC+01:00)" }),
      }),
      handler: (ctx, { query }) => todayByTicket(ctx, query),
    }),
  ),
  'PATCH /api/v1/time-tracking/entries/{entryId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Change a time entry',
      description:
        'Own entries, or any for holders of time-tracking:approve; an approved agent entry only by them. A billed entry is locked (409 ENTRY_BILLED); a rejected one cannot change.',
      result: timeEntryResult,
      errors: [...CAP, 'ENTRY_BILLED'],
      params: entryParams,
      body: z.strictObject({ durationMinutes: durationMinutes.optional(), description: description.optional(), date: entryDate.optional() }),
      handler: (ctx, { params, body }) => updateEntry(ctx, params.entryId, body),
    }),
  ),
  'DELETE /api/v1/time-tracking/entries/{entryId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a time entry',
      status: 204,
      errors: [...OFF, 'ENTRY_BILLED'],
      params: entryParams,
      handler: (ctx, { params }) => deleteEntry(ctx, params.entryId),
    }),
  ),
  'POST /api/v1/time-tracking/entries/{entryId}/approve': onFirstUse(() =>
    authenticated({
      ...fromOperation(decideEntryOp),
      summary: "Approve an agent's pending entry",
      description: 'time-tracking:approve, never on one\'s own entry. A decided entry answers 409.',
      result: timeEntryResult,
      params: entryParams,
      handler: (ctx, { params }) => decideEntry(ctx, params.entryId, 'APPROVED'),
    }),
  ),
  'POST /api/v1/time-tracking/entries/{entryId}/reject': onFirstUse(() =>
    authenticated({
      ...fromOperation(decideEntryOp, { body: true }),
      summary: "Reject an agent's pending entry",
      description: "time-tracking:approve, never on one's own entry. A decided entry answers 409. The minutes leave the agent's week.",
      result: timeEntryResult,
      params: entryParams,
      handler: (ctx, { params, body }) => decideEntry(ctx, params.entryId, 'REJECTED', body?.reason),
    }),
  ),
  'POST /api/v1/time-tracking/entries/{entryId}/resync': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Push an approved entry to the time-booking system again',
      description: 'Own entries, or any for administrators. The push is queued; the entry shows `syncStatus: PENDING` until it is answered.',
      result: timeEntryResult,
      errors: [...OFF, 'ENTRY_BILLED', 'SYNC_NOT_CONFIGURED'],
      params: entryParams,
      handler: (ctx, { params }) => resyncEntry(ctx, params.entryId),
    }),
  ),
  'GET /api/v1/time-tracking/booking-items': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List booking items',
      result: z.array(bookingItemResult),
      errors: OFF,
      query: z.strictObject({
        boardId: idParam.optional().meta({ description: 'Only items offered on this board' }),
        q: z.string().max(200).optional().meta({ description: 'Name contains (any case)' }),
        isActive: queryBoolean.optional(),
      }),
      handler: (ctx, { query }) => listBookingItems(ctx, query),
    }),
  ),
  'POST /api/v1/time-tracking/booking-items': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Create a booking item (administrators)',
      status: 201,
      result: bookingItemResult,
      errors: OFF,
      body: z.strictObject({
        name: requiredText(200),
        externalId: optionalText(200).nullable().optional(),
        boardIds: z.array(idParam).max(100).optional(),
        isActive: z.boolean().optional(),
      }),
      handler: (ctx, { body }) => createBookingItem(ctx, body),
    }),
  ),
  'PATCH /api/v1/time-tracking/booking-items/{bookingItemId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Change a booking item (administrators)',
      result: bookingItemResult,
      errors: OFF,
      params: bookingItemParams,
      body: z.strictObject({
        name: requiredText(200).optional(),
        externalId: optionalText(200).nullable().optional(),
        boardIds: z.array(idParam).max(100).optional(),
        isActive: z.boolean().optional(),
      }),
      handler: (ctx, { params, body }) => updateBookingItem(ctx, params.bookingItemId, body),
    }),
  ),
  'DELETE /api/v1/time-tracking/booking-items/{bookingItemId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Delete a booking item (administrators)',
      status: 204,
      errors: OFF,
      params: bookingItemParams,
      handler: (ctx, { params }) => deleteBookingItem(ctx, params.bookingItemId),
    }),
  ),
  'GET /api/v1/time-tracking/sync-endpoint': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Get the time-booking sync endpoint (administrators)',
      result: syncEndpointResult,
      errors: [...OFF, 'NOT_FOUND'],
      handler: (ctx) => getSyncEndpoint(ctx),
    }),
  ),
  'PUT /api/v1/time-tracking/sync-endpoint': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Configure the time-booking sync endpoint (administrators)',
      description:
        'Approved entries are pushed to this HTTPS URL as signed JSON POSTs, exactly like webhook deliveries (same headers, signatures and retries). A new endpoint returns its `secret` once; `rotateSecret` issues a new one.',
      result: savedSyncEndpointResult,
      errors: OFF,
      body: z.strictObject({ url: storedUrl(2000), rotateSecret: z.boolean().optional() }),
      handler: (ctx, { body }) => putSyncEndpoint(ctx, body),
    }),
  ),
  'DELETE /api/v1/time-tracking/sync-endpoint': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Remove the time-booking sync endpoint (administrators)',
      status: 204,
      errors: [...OFF, 'NOT_FOUND'],
      handler: (ctx) => deleteSyncEndpoint(ctx),
    }),
  ),
  'GET /api/v1/boards/{boardId}/time-entries': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "List a board's time entries",
      result: timeEntryResult,
      envelope: 'page',
      errors: OFF,
      params: boardParams,
      query: z.strictObject({ ...pageQuery(50, 100), ...period }),
      handler: (ctx, { params, query }) => listBoardEntries(ctx, params.boardId, query),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/time-entries': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: "List a ticket's time entries",
      result: timeEntryResult,
      envelope: 'page',
      errors: OFF,
      params: ticketParams,
      query: z.strictObject(pageQuery(50, 100)),
      handler: (ctx, { params, query }) => listTicketEntries(ctx, params.boardId, params.ticketId, query),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/time-entries/summary': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'Time tracked on a ticket',
      result: summaryResult,
      errors: OFF,
      params: ticketParams,
      handler: (ctx, { params }) => ticketSummary(ctx, params.boardId, params.ticketId),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/time-entries/summary-with-budget': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: "Time tracked on a ticket against its estimate",
      result: budgetSummaryResult,
      errors: OFF,
      params: ticketParams,
      handler: (ctx, { params }) => ticketSummaryWithBudget(ctx, params.boardId, params.ticketId),
    }),
  ),
});
