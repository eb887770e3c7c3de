import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { localSqsClient } from './sqs.js';

export interface SqsRecordShape {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: Record<string, string>;
  messageAttributes: Record<string, unknown>;
  eventSource: 'aws:sqs';
  eventSourceARN: string;
  awsRegion: string;
}

export type QueueLambda = (event: { Records: SqsRecordShape[] }) => Promise<{ batchItemFailures?: { itemIdentifier: string }[] } | undefined>;

export interface QueuePoller {
  stop(): Promise<void>;
}

/** Batches in flight at once: Lambda's SQS event source starts with five concurrent pollers. */
const CONCURRENT_BATCHES = 5;

/**
 * Plays the SQS → Lambda event source mapping: long-polls the queue with several pollers at once,
 * invokes the consumer with Lambda-shaped records, and deletes the messages it did not report as
 * failures (a reported or thrown failure leaves the message to reappear when its visibility
 * timeout ends, as the consumer may have set it).
 */
export function startQueuePoller(endpoint: string, queueUrl: string, consumer: QueueLambda, batchSize: number, concurrency = CONCURRENT_BATCHES): QueuePoller {
  const client = localSqsClient(endpoint);
  const abort = new AbortController();
  let stopped = false;

  async function pollOnce(): Promise<void> {
    const received = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: batchSize, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }),
      { abortSignal: abort.signal },
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) return;
    let failed: Set<string>;
    try {
      const result = await consumer({ Records: messages.map(recordOf) });
      failed = new Set((result && 'batchItemFailures' in result ? result.batchItemFailures ?? [] : []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      console.error('queue consumer failed', error);
      return;
    }
    const done = messages.filter((message) => !failed.has(message.MessageId!));
    if (done.length === 0) return;
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
      }),
    );
  }

  const poller = async () => {
    while (!stopped) {
      try {
        await pollOnce();
      } catch (error) {
        if (stopped) break;
        console.error('queue poll failed', error);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  const loop = Promise.all(Array.from({ length: concurrency }, poller));

  function recordOf(message: Message): SqsRecordShape {
    return {
      messageId: message.MessageId!,
      receiptHandle: message.ReceiptHandle!,
      body: message.Body ?? '',
      attributes: (message.Attributes ?? {}) as Record<string, string>,
      messageAttributes: message.MessageAttributes ?? {},
      eventSource: 'aws:sqs',
      eventSourceARN: queueUrl,
      awsRegion: 'local',
    };
  }

  return {
    stop: async () => {
      stopped = true;
      abort.abort();
      await loop;
      client.destroy();
    },
  };
}
