import type { DynamoDBStreamEvent, DynamoDBBatchResponse } from 'aws-lambda';
import { consumeStreamRecords, type StreamRecordLike } from '../lib/events/consumer.js';
import { eventDispatcher } from '../lib/events/dispatcher.js';
import { systemClock } from '../lib/core/clock.js';
import { log, takeColdStart } from '../lib/core/telemetry.js';
import { queueTimeSync, TIME_SYNC_EVENT } from '../lib/time/sync.js';
import { purgeWiki, WIKI_PURGE_EVENT } from '../lib/wiki/purge.js';
import { runWikiSearchIndexJob, WIKI_SEARCH_INDEX_JOB } from '../lib/wiki/search-index.js';
import { propagateReadiness } from '../lib/tickets/dependencies/propagate.js';
import { READINESS_EVENT } from '../lib/tickets/dependencies/readiness.js';
import { clearDeletedMilestone, MILESTONE_CLEARING_JOB } from '../lib/milestones/index.js';
import { detachDeletedRelease, RELEASE_DETACHING_JOB } from '../lib/releases/index.js';
import { runSearchIndexJob, SEARCH_INDEX_JOB } from '../lib/tickets/search/index.js';
import { RETYPE_JOB, retypeStep } from '../lib/tickets/lists/retype.js';
import { recategorizeStep } from '../lib/tickets/lists/recategorize.js';
import { RECATEGORIZE_JOB } from '../lib/statuses/index.js';
import { flagLostAssigneesStep } from '../lib/tickets/lists/bulk.js';
import { LOST_ASSIGNEES_JOB } from '../lib/boards/membership.js';

/**
 * Events to webhook endpoints; time entry pushes to the organization's time-booking endpoint;
 * wiki content purges; readiness changes carried to dependent tickets and parents; the background
 * jobs of deletions, category changes and membership removals whose work grows with the data; the ticket and wiki search indexes.
 */
const dispatch = eventDispatcher({
  [TIME_SYNC_EVENT]: queueTimeSync,
  [WIKI_PURGE_EVENT]: purgeWiki,
  [READINESS_EVENT]: propagateReadiness,
  [MILESTONE_CLEARING_JOB]: clearDeletedMilestone,
  [RELEASE_DETACHING_JOB]: detachDeletedRelease,
  [SEARCH_INDEX_JOB]: runSearchIndexJob,
  [RETYPE_JOB]: retypeStep,
  [RECATEGORIZE_JOB]: recategorizeStep,
  [LOST_ASSIGNEES_JOB]: flagLostAssigneesStep,
  [WIKI_SEARCH_INDEX_JOB]: runWikiSearchIndexJob,
});

/** Table stream consumer: outbox events → dispatcher, with partial batch failure reporting. */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const coldStart = takeColdStart();
  const started = Date.now();
  const result = await consumeStreamRecords(event.Records as StreamRecordLike[], dispatch, systemClock);
  log.info('event batch', { records: event.Records.length, dispatched: result.dispatched.length, failed: result.batchItemFailures.length, ms: Date.now() - started, coldStart });
  return { batchItemFailures: result.batchItemFailures };
};
