import { db } from '../../lib/db/service.js';
import { pollPause } from './wait.js';

export interface RecordedEvent {
  eventId: string;
  type: string;
  data: Record<string, any>;
  /** Who caused it, when an agent did (delivered beside `data`). */
  attribution?: Record<string, any>;
  dispatchedAt?: string;
}

/**
 * The events recorded for a subject (a ticket id), once the stream consumer has dispatched
 * every one of them (it marks each with `dispatchedAt`): what the consumer handed on.
 * Waits until at least `atLeast` are dispatched, up to 15 s: the one stream consumer of the
 * shared runtime carries every test file's events, and on a busy 2-core machine it can fall
 * some seconds behind.
 */
export async function dispatchedEventsOf(orgId: string, subjectId: string, atLeast = 1, timeoutMs = 15_000): Promise<RecordedEvent[]> {
  const deadline = Date.now() + timeoutMs;
  let events: RecordedEvent[] = [];
  for (let attempt = 0; Date.now() < deadline; attempt += 1) {
    events = (await db().entities.event.query.bySubject({ orgId, subjectId }).go({ pages: 'all' })).data as RecordedEvent[];
    if (events.length >= atLeast && events.every((event) => event.dispatchedAt)) return events;
    await new Promise((resolve) => setTimeout(resolve, pollPause(attempt)));
  }
  throw new Error(`expected ${atLeast} dispatched events for ${subjectId}, found ${events.length} (${events.filter((event) => event.dispatchedAt).length} dispatched)`);
}
