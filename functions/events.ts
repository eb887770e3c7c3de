import type { DynamoDBStreamEvent, DynamoDBBatchResponse } from 'aws-lambda';
import { consumeStreamRecords, type StreamRecordLike } from '../lib/events/consumer.js';
import { dispatchEvent } from '../lib/events/dispatcher.js';
import { systemClock } from '../lib/core/clock.js';

/** Table stream consumer: outbox events → dispatcher, with partial batch failure reporting. */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const result = await consumeStreamRecords(event.Records as StreamRecordLike[], dispatchEvent, systemClock);
  return { batchItemFailures: result.batchItemFailures };
};
