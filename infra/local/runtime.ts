import { randomBytes, createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import { functionGroups, routeKeysOf } from '../route-table.js';
import { allEmbeddedValues } from '../embeds.js';
import { provideEmbedded } from '../../lib/core/embedded.js';
import { DEFAULT_CREDENTIAL_RATE_LIMIT, resetConfig } from '../../lib/core/config.js';
import { createApiGateway, type HttpLambda } from './api-gateway.js';
import { ensureTable, startDynamoDbLocal, type LocalDynamo } from './dynamodb.js';
import { ensureQueues, startLocalSqs, type LocalSqs } from './sqs.js';
import { afterEachWrite, startStreamPoller, type StreamLambda, type StreamPoller } from './stream-poller.js';
import { dynamo as functionsClient } from '../../lib/db/client.js';
import { startQueuePoller, type QueueLambda } from './queue-poller.js';
import { requeuePendingDeliveries } from './requeue-deliveries.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

export interface LocalRuntimeOptions {
  port?: number;
  /** The interface the API listens on: 127.0.0.1 (this machine only) unless told otherwise (`HOST`). */
  host?: string;
  baseDomain?: string;
  platformAdminToken?: string;
  dataDir?: string;
  dynamoEndpoint?: string;
  sqsEndpoint?: string;
  tableName?: string;
  sweeperIntervalSeconds?: number;
  /** Adds `x-db-round-trips` to every response (tests hold endpoints to their budget with it). */
  exposeRoundTrips?: boolean;
  /** Checks every response against its route's documented responses; a mismatch becomes a 500 (tests). */
  validateResponses?: boolean;
  /** Per-request and per-event log lines; unset follows `LOG_REQUESTS` (on unless `false`). */
  logRequests?: boolean;
  /** Source IP from `X-Forwarded-For` (tests only; see createApiGateway). */
  trustForwardedFor?: boolean;
  /** Admits http://127.0.0.1 and http://localhost webhook URLs; unset follows `WEBHOOK_ALLOW_LOOPBACK`. */
  webhookAllowLoopback?: boolean;
  /** The webhook retry schedule (seconds); unset follows `WEBHOOK_RETRY_DELAYS_SECONDS`. */
  webhookRetryDelaysSeconds?: number[];
  /** The organization a request that names none reaches (`DEFAULT_ORGANIZATION`; `npm start`: `acme`); unset: none. */
  defaultOrganization?: string;
  /** Requests a minute per credential (0: no limit); unset follows `CREDENTIAL_RATE_LIMIT`, else the deployed default. */
  credentialRateLimit?: number;
  /**
   * Runs the stream consumer (default). A runtime on another runtime's table sets false: that
   * runtime's consumer already hands over every event, and a second would read the whole stream again.
   */
  consumeStream?: boolean;
  /** Prints each mail's link (invitations, password resets) as it is kept in the outbox: `npm start`. */
  printMail?: boolean;
}

export interface LocalRuntime {
  baseUrl: string;
  port: number;
  host: string;
  platformAdminToken: string;
  /** The organization requests naming none reach (DEFAULT_ORGANIZATION), if any. */
  defaultOrganization: string | undefined;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  tableName: string;
  webhookQueueUrl: string;
  webhookDeadLetterQueueUrl: string;
  /** Waits until the stream consumer has seen every change written so far. */
  drainStream(): Promise<void>;
  /** Runs the scheduled functions now (what the 1-minute schedule does). */
  runSchedule(): Promise<void>;
  /** The environment the functions run with (what the stack gives them, for this runtime). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The local stand-in for the deployed stack, built from the same route table: DynamoDB
 * Local with the stack's table, a local SQS with its queues, an HTTP server playing API
 * Gateway, a stream poller playing the stream event source and a timer playing the schedule.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const stoppers: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.reverse()) await stop().catch((error: unknown) => console.error('shutdown step failed', error));
  };
  try {
    // The console's assets, built when web/ changed since the last build (web/build.ts).
    for (const group of functionGroups) if (group.kind === 'http' && group.builtFolder) group.builtFolder.build();
    let dynamo: LocalDynamo | undefined;
    if (!options.dynamoEndpoint) {
      dynamo = await startDynamoDbLocal(options.dataDir);
      stoppers.push(() => dynamo!.stop());
    }
    const dynamoEndpoint = options.dynamoEndpoint ?? dynamo!.endpoint;
    let sqs: LocalSqs | undefined;
    if (!options.sqsEndpoint) {
      sqs = await startLocalSqs();
      stoppers.push(() => sqs!.stop());
    }
    const sqsEndpoint = options.sqsEndpoint ?? sqs!.endpoint;

    const tableName = options.tableName ?? 'work-management';
    await ensureTable(dynamoEndpoint, tableName);
    const { webhookQueueUrl, webhookDlqUrl } = await ensureQueues(sqsEndpoint);

    const platformAdminToken = options.platformAdminToken ?? `wmo_${randomBytes(24).toString('base64url')}`;
    const env: Record<string, string> = {
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: dynamoEndpoint,
      SQS_ENDPOINT: sqsEndpoint,
      WEBHOOK_QUEUE_URL: webhookQueueUrl,
      WEBHOOK_DLQ_URL: webhookDlqUrl,
      WEBHOOK_ALLOW_LOOPBACK: String(options.webhookAllowLoopback ?? process.env.WEBHOOK_ALLOW_LOOPBACK === 'true'),
      ...(options.webhookRetryDelaysSeconds ? { WEBHOOK_RETRY_DELAYS_SECONDS: options.webhookRetryDelaysSeconds.join(',') } : {}),
      AWS_REGION: process.env.AWS_REGION ?? 'local',
      BASE_DOMAIN: options.baseDomain ?? process.env.BASE_DOMAIN ?? 'localhost',
      JWT_SECRET: process.env.JWT_SECRET ?? randomBytes(48).toString('base64url'),
      WEBHOOK_SECRET_KEY: process.env.WEBHOOK_SECRET_KEY ?? randomBytes(48).toString('base64url'),
      OAUTH_SIGNING_KEY_SEED: process.env.OAUTH_SIGNING_KEY_SEED ?? randomBytes(48).toString('base64url'),
      PLATFORM_ADMIN_TOKEN_SHA256: createHash('sha256').update(platformAdminToken).digest('hex'),
      EXPOSE_ROUND_TRIPS: options.exposeRoundTrips ? 'true' : 'false',
      VALIDATE_RESPONSES: options.validateResponses ? 'true' : 'false',
      LOG_REQUESTS: String(options.logRequests ?? process.env.LOG_REQUESTS !== 'false'),
      ...(options.defaultOrganization ? { DEFAULT_ORGANIZATION: options.defaultOrganization } : {}),
      CREDENTIAL_RATE_LIMIT: String(options.credentialRateLimit ?? (process.env.CREDENTIAL_RATE_LIMIT || DEFAULT_CREDENTIAL_RATE_LIMIT)),
      // One readable line per request, batch, attempt and sweep; `json` prints what Lambda prints (metrics too).
      LOG_FORMAT: process.env.LOG_FORMAT === 'json' ? 'json' : 'text',
      // Mail stays here: the organization's outbox (lib/mail), its links printed when asked.
      MAIL_FROM: '',
      MAIL_PRINT: options.printMail ? 'true' : 'false',
    };
    applyFunctionEnvironment(env);

    const routes = await loadHttpRoutes();
    const scheduled: { name: string; everyMinutes: number; handler: () => Promise<unknown> }[] = [];
    let streamConsumer: StreamLambda | undefined;
    const queueConsumers: { queueUrl: string; batchSize: number; handler: QueueLambda }[] = [];
    const queueUrls = { webhook: webhookQueueUrl };
    for (const group of functionGroups) {
      if (group.kind === 'http') continue;
      const module = (await import(pathToFileURL(resolve(repoRoot, group.entry)).href)) as { handler: unknown };
      if (group.kind === 'stream') {
        streamConsumer = module.handler as StreamLambda;
      } else if (group.kind === 'queue') {
        queueConsumers.push({ queueUrl: queueUrls[group.queue], batchSize: group.batchSize, handler: module.handler as QueueLambda });
      } else {
        scheduled.push({ name: group.name, everyMinutes: group.everyMinutes, handler: module.handler as () => Promise<unknown> });
      }
    }

    // The embedded queue forgets its messages with the process; the table (DATA_DIR) remembers the deliveries.
    if (options.dataDir && !options.sqsEndpoint) {
      const requeued = await requeuePendingDeliveries();
      if (requeued > 0) console.log(`queued ${requeued} webhook deliveries again that were waiting when the last run stopped`);
    }

    let poller: StreamPoller | undefined;
    if (streamConsumer && options.consumeStream !== false) {
      // With data kept, the stream position is kept beside it: a restart resumes where the last run stopped.
      const started = await startStreamPoller(dynamoEndpoint, tableName, streamConsumer, options.dataDir ? { positionFile: join(options.dataDir, `${tableName}.stream-position.json`) } : {});
      poller = started;
      stoppers.push(() => started.stop(), afterEachWrite(functionsClient(), () => started.nudge()));
    }

    for (const consumer of queueConsumers) {
      const queuePoller = startQueuePoller(sqsEndpoint, consumer.queueUrl, consumer.handler, consumer.batchSize);
      stoppers.push(() => queuePoller.stop());
    }

    const runSchedule = async () => {
      for (const job of scheduled) await job.handler().catch((error: unknown) => console.error(`scheduled ${job.name} failed`, error));
    };
    const intervalSeconds = options.sweeperIntervalSeconds ?? Number(process.env.SWEEPER_INTERVAL_SECONDS ?? 60);
    const timer = setInterval(() => void runSchedule(), intervalSeconds * 1000);
    timer.unref();
    stoppers.push(async () => clearInterval(timer));

    const server = createApiGateway(routes, { trustForwardedFor: options.trustForwardedFor });
    const host = options.host ?? '127.0.0.1';
    const port = await listen(server, options.port ?? 3000, host);
    stoppers.push(
      () =>
        new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
    );

    return {
      baseUrl: `http://localhost:${port}`,
      port,
      host,
      platformAdminToken,
      defaultOrganization: options.defaultOrganization || undefined,
      dynamoEndpoint,
      sqsEndpoint,
      tableName,
      webhookQueueUrl,
      webhookDeadLetterQueueUrl: webhookDlqUrl,
      drainStream: async () => {
        if (poller) {
          await poller.drain();
          await poller.drain();
        }
      },
      runSchedule,
      env,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Gives this process the functions' environment: the variables, and what the stack embeds in their bundles. */
export function applyFunctionEnvironment(env: Record<string, string>): void {
  // A runtime without a default organization has none, whatever an earlier one in this process had.
  if (!('DEFAULT_ORGANIZATION' in env)) delete process.env.DEFAULT_ORGANIZATION;
  Object.assign(process.env, env);
  resetConfig();
  // What the stack inlines into the bundles of the functions that embed them (route keys, the OpenAPI document).
  provideEmbedded(allEmbeddedValues());
}

/** Every HTTP route of the route table with its group's handler, imported in this process. */
export async function loadHttpRoutes(): Promise<{ routeKey: string; handler: HttpLambda }[]> {
  const routes: { routeKey: string; handler: HttpLambda }[] = [];
  for (const group of functionGroups) {
    if (group.kind !== 'http') continue;
    const module = (await import(pathToFileURL(resolve(repoRoot, group.entry)).href)) as { handler: HttpLambda };
    for (const routeKey of routeKeysOf(group)) routes.push({ routeKey, handler: module.handler });
  }
  return routes;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolvePort(typeof address === 'object' && address ? address.port : port);
    });
  });
}
