import { readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { declaredJobKinds, defineJob, jobKind, jobRegistry } from '../../lib/events/jobs.js';
import { eventDispatcher } from '../../lib/events/dispatcher.js';
import { log } from '../../lib/core/telemetry.js';
import { systemClock } from '../../lib/core/clock.js';
import { EVENT_TYPES } from '../../lib/webhooks/index.js';

/*
 * Typed jobs (lib/events/jobs.ts): every kind a domain declares has its handler in the events
 * function's registry, no job shares a name with a webhook event, and a record of a type
 * nobody declared, or a payload its kind's schema refuses, is logged with its id and not retried.
 */
afterEach(() => {
  vi.restoreAllMocks();
});

const record = (type: string, data: Record<string, unknown>) => ({ eventId: 'evt_TEST', orgId: 'org_TEST', subjectId: 'sub_TEST', type, occurredAt: new Date().toISOString(), data });

describe('the job registry', () => {
  it('runs every kind the domains declare, each once, none named like a webhook event', async () => {
    // Every domain's face, as any function may load them: what they declare is every kind there is.
    for (const module of readdirSync(resolve('lib'), { withFileTypes: true })) {
      if (module.isDirectory() && readdirSync(resolve('lib', module.name)).includes('index.ts')) await import(pathToFileURL(resolve('lib', module.name, 'index.ts')).href);
    }
    const { JOBS } = await import('../../functions/events.js');
    const wired = JOBS.map((job) => job.name);
    const declared = declaredJobKinds();
    expect(declared.length).toBeGreaterThanOrEqual(10);
    expect(declared.filter((name) => !wired.includes(name))).toEqual([]);
    expect(new Set(wired).size).toBe(wired.length);
    expect(wired.filter((name) => (EVENT_TYPES as string[]).includes(name))).toEqual([]);
  });

  it('refuses a kind declared twice and a job given two handlers, at load', () => {
    const kind = jobKind('test.twice', (z) => z.object({ n: z.number() }));
    expect(() => jobKind('test.twice', (z) => z.object({}))).toThrow('declared twice');
    const job = defineJob(kind, async () => 0);
    expect(() => jobRegistry([job, job])).toThrow('two handlers');
  });
});

describe('the events dispatcher', () => {
  it('hands a job its parsed payload, and logs a refused payload and an undeclared type with the record id, without throwing (never retried)', async () => {
    const seen: unknown[] = [];
    const kind = jobKind('test.dispatch', (z) => z.object({ ticketId: z.string(), pass: z._default(z.number(), 0) }));
    const dispatch = eventDispatcher([
      defineJob(kind, async (run) => {
        seen.push(run.data);
        return 0;
      }),
    ]);
    const errors = vi.spyOn(log, 'error').mockImplementation(() => undefined);

    await dispatch(record('test.dispatch', { ticketId: 'tkt_1' }), systemClock, new Map());
    expect(seen).toEqual([{ ticketId: 'tkt_1', pass: 0 }]);

    await dispatch(record('test.dispatch', { ticketId: 42 }), systemClock, new Map());
    expect(seen).toHaveLength(1);
    expect(errors).toHaveBeenLastCalledWith('job payload refused', expect.objectContaining({ eventId: 'evt_TEST', type: 'test.dispatch', issues: expect.stringContaining('ticketId') }));

    await dispatch(record('test.nobody-wired-this', {}), systemClock, new Map());
    expect(errors).toHaveBeenLastCalledWith('undeclared job', expect.objectContaining({ eventId: 'evt_TEST', type: 'test.nobody-wired-this' }));
    expect(errors).toHaveBeenCalledTimes(2);
  });
});
