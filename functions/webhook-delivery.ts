import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverQueuedMessages } from '../lib/webhooks/index.js';
import { systemClock } from '../lib/core/clock.js';
import { log, takeColdStart } from '../lib/core/telemetry.js';
import { TIME_SYNC_KIND, timeSyncDeliveries } from '../lib/time/index.js';

/**
 * The webhook queue's consumer: one attempt per message, partial batch failures for the ones
 * that retry. Besides events to webhook endpoints it delivers the time-booking sync's pushes.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const coldStart = takeColdStart();
  const started = Date.now();
  const result = await deliverQueuedMessages(event.Records, systemClock, { [TIME_SYNC_KIND]: timeSyncDeliveries });
  log.info('delivery batch', { messages: event.Records.length, retried: result.batchItemFailures.length, ms: Date.now() - started, coldStart });
  return result;
};
