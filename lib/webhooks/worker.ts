import type { Clock } from '../core/clock.js';
import { attemptDelivery, type DeliveryKinds } from './attempts.js';
import { postponeMessage, sendToDeadLetter, type DeliveryMessage } from './queue.js';
import { log, publishMetrics } from '../core/telemetry.js';

/** The subset of an SQS record (Lambda event shape) the worker reads. */
export interface QueueRecordLike {
  messageId: string;
  receiptHandle: string;
  body: string;
}

/**
 * Makes one attempt per message, all messages of a batch at once. A message whose delivery
 * must be tried again stays on the queue: it is hidden for the pause before its next attempt
 * (ChangeMessageVisibility, no sleeping) and reported as a batch item failure, so SQS shows it
 * again when the pause ends. After the last failed attempt the message goes to the dead-letter
 * queue. A message that fails unexpectedly is reported too and comes back after the queue's
 * visibility timeout; one that cannot be read is dropped (it never will be readable).
 */
export async function deliverQueuedMessages(records: QueueRecordLike[], clock: Clock, kinds: DeliveryKinds = {}): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failures = await Promise.all(
    records.map(async (record): Promise<string | undefined> => {
      let message: DeliveryMessage;
      try {
        message = parseMessage(record.body);
      } catch {
        log.error('unreadable webhook message dropped', { messageId: record.messageId });
        return undefined;
      }
      try {
        const outcome = await attemptDelivery(message, record.messageId, { clock, kinds });
        if (outcome.kind === 'retry') {
          await postponeMessage(record.receiptHandle, outcome.delaySeconds);
          return record.messageId;
        }
        if (outcome.kind === 'dead') {
          await sendToDeadLetter(message, outcome.reason);
          log.warn('delivery dead-lettered', { deliveryId: message.deliveryId, endpointId: message.endpointId, orgId: message.orgId, reason: outcome.reason });
          publishMetrics({ WebhookDeadLettered: 1 });
        }
        return undefined;
      } catch (error) {
        log.error('webhook attempt failed', { deliveryId: message.deliveryId, endpointId: message.endpointId, orgId: message.orgId }, error);
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: failures.filter((id): id is string => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })) };
}

function parseMessage(body: string): DeliveryMessage {
  const value = JSON.parse(body) as Partial<DeliveryMessage>;
  if (typeof value.orgId !== 'string' || typeof value.endpointId !== 'string' || typeof value.deliveryId !== 'string') {
    throw new Error('not a delivery message');
  }
  if (value.kind !== undefined && typeof value.kind !== 'string') throw new Error('not a delivery message');
  return { orgId: value.orgId, endpointId: value.endpointId, deliveryId: value.deliveryId, ...(value.kind ? { kind: value.kind } : {}) };
}
