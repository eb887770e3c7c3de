import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverQueuedMessages } from '../lib/webhooks/worker.js';
import { systemClock } from '../lib/core/clock.js';

/** The webhook queue's consumer: one attempt per message, partial batch failures for the ones that retry. */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => deliverQueuedMessages(event.Records, systemClock);
