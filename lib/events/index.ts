/** Public face of the event outbox for other domains: they reach it only through this file. */
export type { DispatchedEvent } from './consumer.js';
export { continueJob, type EventInput, type EventRecord, eventPuts, newEventRecord } from './outbox.js';
