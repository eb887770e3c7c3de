import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { queues } from '../route-table.js';
import { freePort } from './net.js';

export interface LocalSqs {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts fauxqs, a local SQS emulator, in this process, listening on loopback only: its own
 * `startFauxqs` listens on every interface, so its app is built and started here instead.
 */
export async function startLocalSqs(): Promise<LocalSqs> {
  const { buildApp } = (await import('fauxqs')) as unknown as {
    buildApp(options: { logger: boolean }): { listen(options: { port: number; host: string }): Promise<string>; close(): Promise<void> };
  };
  const app = buildApp({ logger: false });
  const port = await freePort();
  await app.listen({ port, host: '127.0.0.1' });
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => app.close() };
}

export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/** Creates the webhook queue and its dead-letter queue from the route table's definition. */
export async function ensureQueues(endpoint: string): Promise<{ webhookQueueUrl: string; webhookDlqUrl: string }> {
  const client = localSqsClient(endpoint);
  try {
    const definition = queues.webhook;
    const dlq = await client.send(
      new CreateQueueCommand({
        QueueName: definition.deadLetter.name,
        Attributes: { MessageRetentionPeriod: String(definition.deadLetter.retentionDays * 86400) },
      }),
    );
    const dlqArn = (
      await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes?.QueueArn;
    const queue = await client.send(
      new CreateQueueCommand({
        QueueName: definition.name,
        Attributes: {
          VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: definition.maxReceiveCount }),
        },
      }),
    );
    return { webhookQueueUrl: queue.QueueUrl!, webhookDlqUrl: dlq.QueueUrl! };
  } finally {
    client.destroy();
  }
}
