/** Public face of the event outbox for other domains: they reach it only through this file. */
export { consumeStreamRecords, type DispatchedEvent, type StreamRecordLike } from './consumer.js';
export { eventDispatcher } from './dispatcher.js';
export { type EventInput, type EventRecord, eventPuts, newEventRecord } from './outbox.js';
export { continueJob, defineJob, type Job, type JobHandler, type JobKind, type JobPayload, type JobRun, jobEvent, jobKind, jobRecord } from './jobs.js';
