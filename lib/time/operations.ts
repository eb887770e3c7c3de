import * as z from 'zod';
import { operation } from '../core/operation.js';
import { calendarDate, optionalText } from '../core/fields.js';
import { entryDescription, entryDurationMinutes, entryTarget } from './shapes.js';
import { TIME_SYNC_JOB } from './sync.js';

/* Time tracking's operations (lib/core/operation.ts): what its REST routes and MCP tools offer, declared once. */

const OFF = ['TIME_TRACKING_DISABLED'] as const;

/** Booking time on a ticket or a booking item; fenced when it names a ticket the caller works under a claim. */
export const logTimeOp = /* @__PURE__ */ operation({
  name: 'time.log',
  scope: 'write',
  fenced: true,
  idempotent: false,
  errors: [...OFF, 'WEEKLY_HOURS_CAP_REACHED', 'NOT_FOUND'],
  // A person's entry is approved at once, and an approved entry is pushed to the time-booking system.
  emits: [],
  jobs: [TIME_SYNC_JOB.name],
  input: () =>
    z.object({
      ...entryTarget,
      durationMinutes: entryDurationMinutes,
      description: entryDescription.optional(),
      date: calendarDate.optional(),
    }),
});

/** Approving or rejecting an agent's pending entry: one declaration for both decisions (a rejection may say why). */
export const decideEntryOp = /* @__PURE__ */ operation({
  name: 'time.decideEntry',
  scope: 'write',
  fenced: false,
  idempotent: false,
  errors: OFF,
  emits: [],
  jobs: [TIME_SYNC_JOB.name],
  input: () => z.object({ reason: optionalText(500).optional() }),
});
