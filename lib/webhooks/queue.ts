import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../core/config.js';

/** What a webhook queue message carries: the key of one delivery (its envelope is in the table). */
export interface DeliveryMessage {
  orgId: string;
  endpointId: string;
  deliveryId: string;
  /** The delivery's kind when it is not an event to a webhook endpoint (see WebhookDelivery `kind`). */
  kind?: string;
}

let client: SQSClient | undefined;

function sqs(): SQSClient {
  const { sqsEndpoint } = config();
  client ??= new SQSClient(
    sqsEndpoint ? { endpoint: sqsEndpoint, region: process.env.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {},
  );
  return client;
}

function queueUrl(): string {
  const url = config().webhookQueueUrl;
  if (!url) throw new Error('WEBHOOK_QUEUE_URL must be set to send webhook deliveries');
  return url;
}

/** SQS takes at most 10 messages per SendMessageBatch. */
const SEND_BATCH = 10;

/** Puts deliveries on the webhook queue; throws unless every message was accepted. */
export async function enqueueDeliveries(messages: DeliveryMessage[]): Promise<void> {
  for (let offset = 0; offset < messages.length; offset += SEND_BATCH) {
    const batch = messages.slice(offset, offset + SEND_BATCH);
    const result = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl(),
        Entries: batch.map((message, index) => ({ Id: String(index), MessageBody: JSON.stringify(message) })),
      }),
    );
    if (result.Failed?.length) throw new Error(`SQS refused ${result.Failed.length} webhook message(s): ${result.Failed[0]!.Code}`);
  }
}

/** Keeps a received message out of sight for `seconds` (≤ 12 h): the pause before its next attempt. */
export async function postponeMessage(receiptHandle: string, seconds: number): Promise<void> {
  await sqs().send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl(), ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
}

/** Parks a delivery whose last attempt failed in the dead-letter queue, with why. */
export async function sendToDeadLetter(message: DeliveryMessage, reason: string): Promise<void> {
  const url = config().webhookDeadLetterQueueUrl;
  if (!url) throw new Error('WEBHOOK_DLQ_URL must be set to park failed webhook deliveries');
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: JSON.stringify(message),
      MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 256) } },
    }),
  );
}
