/**
 * The deployable stack. Everything here is derived from two sources of truth so that the
 * cloud and the local runtime cannot drift:
 *   - `functionGroups` / `queues` (infra/route-table.ts): every Lambda, its trigger, routes
 *     and the access it needs;
 *   - `tableDefinition()` (lib/db/schema.ts): the physical single table.
 * No function name or route is listed in this file.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { ApiMapping, type CfnStage, DomainName, HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tableDefinition } from '../lib/db/schema.js';
import { functionGroups, queues, routeKeysOf, type FunctionDefinition, type HttpGroup } from './route-table.js';
import { writeEmbeddedFiles } from './embeds.js';

/** Entry paths in the route table are relative to the repository root (the parent of infra/). */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface WorkManagementStackProps extends StackProps {
  /** Organizations are served at `<slug>.<baseDomain>`. */
  baseDomain?: string;
  /** ACM certificate (same region as the API) covering `*.<baseDomain>`. */
  certificateArn?: string;
  /** Hex SHA-256 of the platform operator's bearer token; unset disables the platform routes. */
  platformAdminTokenSha256?: string;
  /** `false` turns off `POST /api/v1/auth/signup`. Default: on. */
  signupEnabled?: boolean;
  /** Comma list replacing the webhook retry schedule (seconds). Default: the code's schedule. */
  webhookRetryDelaysSeconds?: string;
  /** Steady requests per second the API stage admits before answering 429. Default: API_THROTTLE.rateLimit. */
  apiRateLimit?: number;
  /** Requests the API stage admits in a burst above the steady rate. Default: API_THROTTLE.burstLimit. */
  apiBurstLimit?: number;
}

/**
 * The API stage's default throttle, for every route: a ceiling that keeps one runaway client or
 * script from spending the account's Lambda concurrency (API Gateway's account limit is 10,000
 * requests per second); the service's own per-route limits (sign-in, registration, OAuth) apply
 * below it. Raise it by context when real traffic needs more.
 */
export const API_THROTTLE = { rateLimit: 1000, burstLimit: 2000 };

/**
 * One JSON line per API request in the access log. Only what the request was and how it ended:
 * never a header (Authorization, Cookie), a query string or a body, so no credential or secret
 * reaches the log.
 */
export const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  domainName: '$context.domainName',
  userAgent: '$context.identity.userAgent',
});

/** Compute settings per trigger kind: HTTP is latency-bound, background work is not. */
const SIZING: Record<FunctionDefinition['kind'], { memorySize: number; timeout: Duration }> = {
  // API Gateway gives up after 29 s; a request that needs more than 10 s is a bug.
  http: { memorySize: 512, timeout: Duration.seconds(10) },
  stream: { memorySize: 256, timeout: Duration.seconds(60) },
  // A webhook attempt waits at most 10 s for the receiver; the queue's visibility timeout (60 s) stays above this.
  queue: { memorySize: 256, timeout: Duration.seconds(30) },
  schedule: { memorySize: 256, timeout: Duration.seconds(60) },
};

/**
 * One bundling configuration for every function: the AWS SDK is bundled (not taken from the
 * runtime) so the deployed code runs exactly the versions that were tested, as minified ESM.
 * Source maps carry mappings only, not the sources: stack traces still name file and line, and
 * the map Node parses at cold start (`--enable-source-maps`) is less than half the size.
 */
export const BUNDLING: BundlingOptions = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  format: OutputFormat.ESM,
  target: 'node22',
  externalModules: [],
  mainFields: ['module', 'main'],
  // Some dependencies are CommonJS and call `require`, which ESM output lacks.
  banner: "import { createRequire } from 'module';const require = createRequire(import.meta.url);",
};

export class WorkManagementStack extends Stack {
  readonly table: dynamodb.Table;
  readonly webhookQueue: sqs.Queue;
  readonly httpApi: HttpApi;
  readonly functions = new Map<string, NodejsFunction>();

  constructor(scope: Construct, id: string, props: WorkManagementStackProps = {}) {
    super(scope, id, props);

    this.table = createTable(this);
    const { queue: webhookQueue, deadLetterQueue: webhookDeadLetters } = createWebhookQueue(this);
    this.webhookQueue = webhookQueue;
    const jwtSecret = createJwtSecret(this);
    const webhookSecretKey = createWebhookSecretKey(this);
    const oauthKeySeed = createOAuthKeySeed(this);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Work-management API',
      // The default `$default` stage deploys every change automatically.
      createDefaultStage: true,
    });
    configureStage(this, this.httpApi, { rateLimit: props.apiRateLimit ?? API_THROTTLE.rateLimit, burstLimit: props.apiBurstLimit ?? API_THROTTLE.burstLimit });

    // Created lazily: only needed when the route table has a stream consumer.
    let streamFailures: sqs.Queue | undefined;

    for (const group of functionGroups) {
      const fn = createFunction(this, group, {
        TABLE_NAME: this.table.tableName,
        BASE_DOMAIN: props.baseDomain ?? '',
        // The template holds only a `{{resolve:secretsmanager:…}}` dynamic reference, which
        // CloudFormation resolves at deploy time; the plaintext never appears in the template
        // or the cloud assembly. (It does end up in the function's configuration, encrypted at
        // rest; reading it per cold start from Secrets Manager would add latency and a
        // dependency for no gain in this threat model. Rotating it needs a redeploy.)
        JWT_SECRET: jwtSecret.secretValue.unsafeUnwrap(),
        NODE_OPTIONS: '--enable-source-maps',
        SIGNUP_ENABLED: String(props.signupEnabled ?? true),
        ...(props.webhookRetryDelaysSeconds
          ? { WEBHOOK_RETRY_DELAYS_SECONDS: props.webhookRetryDelaysSeconds }
          : {}),
        ...(sendsToWebhookQueue(group) || group.kind === 'queue' ? { WEBHOOK_QUEUE_URL: webhookQueue.queueUrl } : {}),
        ...(group.kind === 'queue' ? { WEBHOOK_DLQ_URL: webhookDeadLetters.queueUrl } : {}),
        // The key that seals webhook secrets goes only to the functions that seal or open them.
        ...(sealsWebhookSecrets(group) ? { WEBHOOK_SECRET_KEY: webhookSecretKey.secretValue.unsafeUnwrap() } : {}),
        // The seed of the OAuth signing key goes only to the functions that issue tokens.
        ...(signsOAuthTokens(group) ? { OAUTH_SIGNING_KEY_SEED: oauthKeySeed.secretValue.unsafeUnwrap() } : {}),
        // The operator token hash is given only to the functions that serve platform routes.
        ...(isPlatform(group) ? { PLATFORM_ADMIN_TOKEN_SHA256: props.platformAdminTokenSha256 ?? '' } : {}),
      });
      this.functions.set(group.name, fn);
      grantAccess(this.table, webhookQueue, group, fn);

      switch (group.kind) {
        case 'http':
          addHttpRoutes(this.httpApi, group, fn);
          break;
        case 'stream':
          streamFailures ??= createStreamFailureQueue(this);
          subscribeToTableStream(this.table, fn, streamFailures);
          break;
        case 'queue':
          // The worker hides a message for the pause before its retry and reports it as a
          // batch item failure; it parks a delivery in the dead-letter queue after its last attempt.
          fn.addEventSource(new SqsEventSource(webhookQueue, { batchSize: group.batchSize, reportBatchItemFailures: true }));
          webhookDeadLetters.grantSendMessages(fn);
          break;
        case 'schedule':
          scheduleEvery(this, group.name, group.everyMinutes, fn);
          break;
        default: {
          // A new trigger kind in the route table must be wired here: a compile error (never)
          // and, for plain JavaScript callers, a synth error, never a silently missing trigger.
          const unsupported: never = group;
          throw new Error(`Unsupported function kind: ${(unsupported as FunctionDefinition).kind}`);
        }
      }
    }

    this.addCustomDomain(props);

    new CfnOutput(this, 'ApiEndpoint', {
      description: 'Default endpoint of the HTTP API',
      value: this.httpApi.apiEndpoint,
    });
    new CfnOutput(this, 'TableName', { description: 'The single DynamoDB table', value: this.table.tableName });
  }

  /**
   * Organizations live on subdomains, so the API is served on the wildcard `*.<baseDomain>`.
   * Only created when both the domain and its certificate are configured.
   */
  private addCustomDomain(props: WorkManagementStackProps): void {
    const { baseDomain, certificateArn } = props;
    if (!baseDomain || !certificateArn) {
      if (baseDomain || certificateArn) {
        Annotations.of(this).addWarning(
          'Custom domain skipped: set both baseDomain and certificateArn to serve *.<baseDomain>.',
        );
      }
      return;
    }
    const domainName = new DomainName(this, 'WildcardDomain', {
      domainName: `*.${baseDomain}`,
      certificate: acm.Certificate.fromCertificateArn(this, 'WildcardCertificate', certificateArn),
    });
    new ApiMapping(this, 'WildcardApiMapping', {
      api: this.httpApi,
      domainName,
      stage: this.httpApi.defaultStage,
    });
    new CfnOutput(this, 'DnsTarget', {
      description: `Point a CNAME (or alias) for *.${baseDomain} at this regional domain name`,
      value: domainName.regionalDomainName,
    });
    new CfnOutput(this, 'DnsTargetHostedZoneId', {
      description: 'Hosted zone id of the regional domain name, for a Route 53 alias record',
      value: domainName.regionalHostedZoneId,
    });
  }
}

/** The single table, exactly as `tableDefinition()` derives it from the entities. */
/** The `$default` stage's access log (JSON, a month) and its default throttle for every route. */
function configureStage(scope: Construct, api: HttpApi, throttle: { rateLimit: number; burstLimit: number }): void {
  const accessLogs = new logs.LogGroup(scope, 'ApiAccessLogs', { retention: logs.RetentionDays.ONE_MONTH });
  const stage = api.defaultStage!.node.defaultChild as CfnStage;
  stage.accessLogSettings = { destinationArn: accessLogs.logGroupArn, format: ACCESS_LOG_FORMAT };
  stage.defaultRouteSettings = { throttlingRateLimit: throttle.rateLimit, throttlingBurstLimit: throttle.burstLimit };
}

function createTable(scope: Construct): dynamodb.Table {
  const definition = tableDefinition();
  const stringKey = (name: string) => ({ name, type: dynamodb.AttributeType.STRING });
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: stringKey(definition.partitionKey),
    sortKey: stringKey(definition.sortKey),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: definition.ttlAttribute,
    // The stream carries the domain events to the stream consumer, which diffs OLD and NEW.
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    // Customer data outlives the stack: deleting the stack must never delete the table, and
    // deleting the table itself (console, CLI) is refused until protection is turned off.
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
  });
  for (const index of definition.globalIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.indexName,
      partitionKey: stringKey(index.partitionKey),
      sortKey: stringKey(index.sortKey),
      projectionType: dynamodb.ProjectionType.ALL,
    });
  }
  return table;
}

/**
 * The webhook delivery queue and its dead-letter queue, from `queues.webhook`. Physical names
 * are left to CloudFormation (so the stack can be deployed twice per account and resources
 * can be replaced); functions receive the URL through their environment.
 */
function createWebhookQueue(scope: Construct): { queue: sqs.Queue; deadLetterQueue: sqs.Queue } {
  const definition = queues.webhook;
  const deadLetterQueue = new sqs.Queue(scope, 'WebhookDeadLetterQueue', {
    retentionPeriod: Duration.days(definition.deadLetter.retentionDays),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
  });
  const queue = new sqs.Queue(scope, 'WebhookQueue', {
    visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
  });
  return { queue, deadLetterQueue };
}

/** Stream batches that still fail after all retries are parked here (metadata only) for inspection. */
function createStreamFailureQueue(scope: Construct): sqs.Queue {
  return new sqs.Queue(scope, 'StreamFailureQueue', {
    retentionPeriod: Duration.days(14),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
  });
}

/** The HMAC key for session JWTs, generated by Secrets Manager so no one ever types it. */
function createJwtSecret(scope: Construct): secretsmanager.Secret {
  return new secretsmanager.Secret(scope, 'JwtSigningSecret', {
    description: 'Signing key of the session JWTs',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
  });
}

/** The key that seals webhook signing secrets in the table, generated by Secrets Manager. */
function createWebhookSecretKey(scope: Construct): secretsmanager.Secret {
  return new secretsmanager.Secret(scope, 'WebhookSecretKey', {
    description: 'Key that seals the webhook endpoints’ signing secrets stored in the table',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
  });
}

/** The seed of the Ed25519 key that signs OAuth access tokens (lib/oauth/keys.ts), generated by Secrets Manager. */
function createOAuthKeySeed(scope: Construct): secretsmanager.Secret {
  return new secretsmanager.Secret(scope, 'OAuthSigningKeySeed', {
    description: 'Seed of the Ed25519 key that signs OAuth access tokens',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
  });
}

/**
 * BUNDLING, plus the files the function reads beside its bundle: its embedded values
 * (infra/embeds.ts, written at synth) and the package files it serves.
 */
export function bundlingOf(group: FunctionDefinition): BundlingOptions {
  if (group.kind !== 'http' || (!group.embeds?.length && !group.assets?.length && !group.aliases)) return BUNDLING;
  const files = [...writeEmbeddedFiles(group), ...(group.assets ?? []).map((asset) => path.join(repoRoot, 'node_modules', asset))];
  const aliases = Object.entries(group.aliases ?? {}).map(([specifier, file]) => [`--alias:${specifier}`, path.join(repoRoot, file)] as const);
  if (files.length === 0) return { ...BUNDLING, esbuildArgs: Object.fromEntries(aliases) };
  return {
    ...BUNDLING,
    ...(aliases.length ? { esbuildArgs: Object.fromEntries(aliases) } : {}),
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir: string, outputDir: string) => files.map((file) => `cp "${file}" "${outputDir}/${path.basename(file)}"`),
    },
  };
}

function createFunction(
  scope: Construct,
  group: FunctionDefinition,
  environment: Record<string, string>,
): NodejsFunction {
  const id = constructId(group.name);
  // An explicit log group (instead of the deprecated `logRetention`, which needs a custom
  // resource Lambda) so retention is a plain CloudFormation property.
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
  return new NodejsFunction(scope, `${id}Function`, {
    description: `${group.kind} function '${group.name}' (${group.entry})`,
    entry: path.join(repoRoot, group.entry),
    handler: 'handler',
    // Pin the lock file and project root so synthesis does not depend on the working directory.
    projectRoot: repoRoot,
    depsLockFilePath: path.join(repoRoot, 'package-lock.json'),
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    ...SIZING[group.kind],
    bundling: bundlingOf(group),
    logGroup,
    environment,
  });
}

/** Least privilege: each function gets exactly the table and queue access its route-table entry declares. */
function grantAccess(table: dynamodb.Table, webhookQueue: sqs.Queue, group: FunctionDefinition, fn: lambda.IFunction): void {
  if (group.table === 'read') table.grantReadData(fn);
  else if (group.table === 'readWrite') table.grantReadWriteData(fn);
  if (sendsToWebhookQueue(group)) webhookQueue.grantSendMessages(fn);
}

/** One Lambda integration per HTTP group and one API Gateway route per 'METHOD /path' string. */
function addHttpRoutes(api: HttpApi, group: HttpGroup, fn: lambda.IFunction): void {
  const integration = new HttpLambdaIntegration(`${constructId(group.name)}Integration`, fn, {
    // One invoke permission for the whole API instead of one per route: a permission per route
    // doubles the resource count (CloudFormation allows 500 per stack) and grows the function's
    // resource policy, which has a size limit. The function only serves its own routes anyway.
    scopePermissionToRoute: false,
  });
  for (const route of routeKeysOf(group)) {
    if (route === '$default') {
      // Requests no other route matches: the service answers them in its own error envelope.
      new HttpRoute(api, 'DefaultRoute', { httpApi: api, routeKey: HttpRouteKey.DEFAULT, integration });
      continue;
    }
    const { method, path: routePath } = parseRoute(route);
    api.addRoutes({ path: routePath, methods: [method], integration });
  }
}

/** Parses 'GET /api/v1/boards/{boardId}' into the method and the path. */
export function parseRoute(route: string): { method: HttpMethod; path: string } {
  const match = /^([A-Z]+) (\/\S*)$/.exec(route);
  const method = match && (HttpMethod as Record<string, HttpMethod | undefined>)[match[1]];
  if (!match || !method) throw new Error(`Invalid route in the route table: '${route}'`);
  return { method, path: match[2] };
}

/**
 * The stream consumer publishes the domain events. Failed batches are bisected to isolate a
 * poison record, records can be reported individually, and what still fails after the retries
 * goes to a queue instead of blocking the shard.
 */
function subscribeToTableStream(table: dynamodb.Table, fn: lambda.IFunction, failures: sqs.IQueue): void {
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      bisectBatchOnError: true,
      retryAttempts: 10,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(failures),
      // Only outbox inserts invoke the consumer: every other write of the table is filtered
      // out by Lambda before an invocation is paid for.
      filters: [
        lambda.FilterCriteria.filter({
          eventName: lambda.FilterRule.isEqual('INSERT'),
          dynamodb: { NewImage: { __edb_e__: { S: lambda.FilterRule.isEqual('event') } } },
        }),
      ],
    }),
  );
}

function scheduleEvery(scope: Construct, name: string, everyMinutes: number, fn: lambda.IFunction): void {
  new events.Rule(scope, `${constructId(name)}Schedule`, {
    description: `Runs '${name}' every ${everyMinutes} minute(s)`,
    schedule: events.Schedule.rate(Duration.minutes(everyMinutes)),
    targets: [new targets.LambdaFunction(fn)],
  });
}

function sendsToWebhookQueue(group: FunctionDefinition): boolean {
  return 'sendsToWebhookQueue' in group && group.sendsToWebhookQueue === true;
}

function sealsWebhookSecrets(group: FunctionDefinition): boolean {
  return (group.kind === 'http' || group.kind === 'queue') && group.sealsWebhookSecrets === true;
}

function signsOAuthTokens(group: FunctionDefinition): boolean {
  return group.kind === 'http' && group.signsOAuthTokens === true;
}

function isPlatform(group: FunctionDefinition): boolean {
  return group.kind === 'http' && group.platform === true;
}

/** 'ticket-types' → 'TicketTypes': stable construct ids, so logical ids do not change between synths. */
function constructId(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}
