import type { $ZodType } from 'zod/v4/core';
import type * as PayloadZod from './payload-zod.js';
import { sha256Hex } from '../core/ids.js';
import type { Clock } from '../core/clock.js';
import { isConditionFailure } from '../db/transact.js';
import { db } from '../db/service.js';
import { type EventInput, type EventRecord, newEventRecord } from './outbox.js';

/**
 * Background jobs (docs/design/events-and-jobs.md). A job is an outbox record of an internal
 * type, never a webhook event: written in the transaction of the change that causes it, handed
 * by the events function to its handler. Each kind is declared once (`jobKind`: its name and
 * its payload's schema) by the domain that enqueues it, and run by one handler (`defineJob`)
 * in the domain that does the work; the events function dispatches through a registry of the
 * domains' jobs (`jobRegistry`), which parses each payload with its kind's schema. A job is
 * enqueued and continued only through its kind, so its payload is typed where it is written
 * and where it is read, with no cast. Payload schemas are written with `zod/mini` (the same
 * schemas, functions instead of methods) and built on first use: a kind declares a function of
 * `z` that returns its schema, and zod is loaded and the schema built when the first job of the
 * kind runs, so no function pays for zod in its cold start for declaring a job (the events
 * function's goal is 1.1× the floor, and classic zod alone costs about 0.07× of it).
 */
type Payload = Record<string, unknown>;

/** A job's payload schema, built from `zod/mini` when first needed. */
export type PayloadSchema<P extends Payload> = (z: typeof PayloadZod) => $ZodType<P>;

export interface JobKind<P extends Payload> {
  readonly name: string;
  readonly payload: PayloadSchema<P>;
}

/** The payload type a kind declares. */
export type JobPayload<K> = K extends JobKind<infer P> ? P : never;

/** One run of a job as its handler receives it: the outbox record, its payload parsed. */
export interface JobRun<P> {
  eventId: string;
  orgId: string;
  subjectId: string;
  type: string;
  occurredAt: string;
  data: P;
}

/** A job's handler: one bounded step of the work; answers how many deliveries it queued. */
export type JobHandler<P> = (job: JobRun<P>, clock: Clock) => Promise<number>;

/** What the events function holds of a job: its name, and a run that parses the payload before the handler sees it. */
export interface Job {
  readonly name: string;
  readonly run: (record: JobRun<unknown>, clock: Clock) => Promise<JobOutcome>;
}

/** A run's outcome: the deliveries its handler queued, or the payload its kind's schema refused (never retried). */
export type JobOutcome = { queued: number } | { refused: string };

/** Every kind declared by a module loaded in this process, by name (a name declared twice fails at load). */
const declared = new Set<string>();

/** Declares a kind of job: its name (unique, never a webhook event type) and the schema of its payload. */
export function jobKind<P extends Payload>(name: string, payload: PayloadSchema<P>): JobKind<P> {
  if (declared.has(name)) throw new Error(`The job ${name} is declared twice`);
  declared.add(name);
  return { name, payload };
}

/** The kinds declared by the modules loaded so far (the registry test checks each has its handler). */
export const declaredJobKinds = (): string[] => [...declared];

/** A job: its kind and its handler, which receives the payload its kind declares. */
export function defineJob<P extends Payload>(kind: JobKind<P>, handler: JobHandler<P>): Job {
  let schema: $ZodType<P> | undefined;
  return {
    name: kind.name,
    run: async (record, clock) => {
      const z = await import('./payload-zod.js');
      schema ??= kind.payload(z);
      const parsed = z.safeParse(schema, record.data);
      if (!parsed.success) return { refused: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'data'}: ${issue.message}`).join('; ') };
      return { queued: await handler({ ...record, data: parsed.data }, clock) };
    },
  };
}

/** The event input that enqueues one run of a job (for a write that takes event inputs, e.g. saveTicket). */
export function jobEvent<P extends Payload>(kind: JobKind<P>, job: { subjectId: string; data: P; eventId?: string }): EventInput {
  return { type: kind.name, subjectId: job.subjectId, data: job.data, ...(job.eventId ? { eventId: job.eventId } : {}) };
}

/** The outbox record that enqueues one run of a job, to write in the transaction of the change that causes it. */
export function jobRecord<P extends Payload>(kind: JobKind<P>, orgId: string, clock: Clock, job: { subjectId: string; data: P; eventId?: string }): EventRecord {
  return newEventRecord(orgId, clock, jobEvent(kind, job));
}

/** The id of the record that continues `eventId`'s work: the same on every run of that event. */
const continuationId = (eventId: string): string => `evt_${sha256Hex(`${eventId}:continued`).slice(0, 26).toUpperCase()}`;

/**
 * Background work in steps: a handler does a bounded part of the work and, while some remains,
 * writes the record that continues it (`data`: e.g. where the next step starts). The stream
 * consumer marks a record only after its handler returned, so a crash at any point replays the
 * step, and a replayed step writes the same continuation (its id derives from the record's),
 * which then already exists: one chain, never two, and no step lost. Each step must be
 * idempotent (re-reading what it changes).
 */
export async function continueJob<P extends Payload>(kind: JobKind<P>, run: JobRun<P>, clock: Clock, data: P): Promise<void> {
  const next = jobRecord(kind, run.orgId, clock, { subjectId: run.subjectId, data, eventId: continuationId(run.eventId) });
  try {
    await db().entities.event.create(next).go({ response: 'none' });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** The events function's jobs by name; a name registered twice is a wiring mistake and fails at start. */
export function jobRegistry(jobs: readonly Job[]): ReadonlyMap<string, Job> {
  const registry = new Map<string, Job>();
  for (const job of jobs) {
    if (registry.has(job.name)) throw new Error(`The job ${job.name} has two handlers`);
    registry.set(job.name, job);
  }
  return registry;
}
