import type { Clock } from '../core/clock.js';
import { EVENT_TYPES, fanOutEvent, type BatchMemo } from '../webhooks/index.js';
import type { DispatchedEvent, Dispatcher } from './consumer.js';
import { type Job, jobRegistry } from './jobs.js';
import { log } from '../core/telemetry.js';

const WEBHOOK_EVENTS: ReadonlySet<string> = new Set(EVENT_TYPES);

/**
 * The stream consumer's dispatcher. A webhook event goes to its subscribers: the organization's
 * webhook endpoints (one SQS message per subscribed endpoint, lib/webhooks/fanout.ts). A job
 * (lib/events/jobs.ts) goes to its handler, from the registry the function's entry builds from
 * the domains' jobs, so this module depends on no domain. A record of any other type is a job
 * nobody declared or wired: logged as an error with its id, and not retried (it never would
 * succeed, and a retry blocks the shard); likewise a job whose payload its schema refuses.
 * Throws when a hand-over fails, so the stream consumer reports the record and it is replayed;
 * a replay queues nothing twice.
 */
export function eventDispatcher(jobs: readonly Job[] = []): Dispatcher {
  const registry = jobRegistry(jobs);
  return async (event: DispatchedEvent, clock: Clock, batch: BatchMemo): Promise<void> => {
    const job = registry.get(event.type);
    if (job) {
      const outcome = await job.run(event, clock);
      if ('refused' in outcome) log.error('job payload refused', { eventId: event.eventId, type: event.type, orgId: event.orgId, issues: outcome.refused });
      else log.info('job run', { eventId: event.eventId, type: event.type, orgId: event.orgId, deliveries: outcome.queued });
      return;
    }
    if (!WEBHOOK_EVENTS.has(event.type)) {
      log.error('undeclared job', { eventId: event.eventId, type: event.type, orgId: event.orgId });
      return;
    }
    const queued = await fanOutEvent(event, clock, batch);
    log.info('event dispatched', { eventId: event.eventId, type: event.type, orgId: event.orgId, deliveries: queued });
  };
}
