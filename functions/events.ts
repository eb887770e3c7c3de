import type { DynamoDBStreamEvent, DynamoDBBatchResponse } from 'aws-lambda';
import { systemClock } from '../lib/core/clock.js';
import { log, takeColdStart } from '../lib/core/telemetry.js';
import { consumeStreamRecords, eventDispatcher, type Job, type StreamRecordLike } from '../lib/events/index.js';
import { milestoneJobs } from '../lib/milestones/index.js';
import { releaseJobs } from '../lib/releases/index.js';
import { ticketJobs } from '../lib/tickets/index.js';
import { timeJobs } from '../lib/time/index.js';
import { wikiJobs } from '../lib/wiki/index.js';

/**
 * Every background job, from each domain's face (lib/events/jobs.ts): time entry pushes to the
 * organization's time-booking endpoint; wiki content purges; readiness carried to dependent
 * tickets and parents; the jobs of deletions, category changes and membership removals whose
 * work grows with the data; the ticket and wiki search indexes. A kind declared by a domain
 * but missing here fails the job registry test (test/unit/jobs.test.ts).
 */
export const JOBS: readonly Job[] = [...ticketJobs, ...wikiJobs, ...timeJobs, ...milestoneJobs, ...releaseJobs];

/** Webhook events to their endpoints, jobs to their handlers. */
const dispatch = eventDispatcher(JOBS);

/** Table stream consumer: outbox events → dispatcher, with partial batch failure reporting. */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const coldStart = takeColdStart();
  const started = Date.now();
  const result = await consumeStreamRecords(event.Records as StreamRecordLike[], dispatch, systemClock);
  log.info('event batch', { records: event.Records.length, dispatched: result.dispatched.length, failed: result.batchItemFailures.length, ms: Date.now() - started, coldStart });
  return { batchItemFailures: result.batchItemFailures };
};
