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
import { Annotations, CfnOutput, Duration, NestedStack, RemovalPolicy, SecretValue, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { ApiMapping, type CfnStage, DomainName, HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import * as iam from 'aws-cdk-lib/aws-iam';
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
import { DEFAULT_CREDENTIAL_RATE_LIMIT } from '../lib/core/config.js';
import { constructId, functionGroups, queues, routeKeysOf, type FunctionDefinition, type HttpGroup } from './route-table.js';
import { writeEmbeddedFiles } from './embeds.js';
import { createAlarmTopic, monitor } from './monitoring.js';

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
  /** An address the alarm topic mails (it must confirm the subscription). Default: none. */
  alarmEmail?: string;
  /** The API's p99 latency (milliseconds) above which its alarm fires. Default: ALARM_DEFAULTS.apiP99LatencyMs. */
  alarmApiP99LatencyMs?: number;
  /** Requests a minute one credential may make (429 beyond); 0 turns the limit off. Default: DEFAULT_CREDENTIAL_RATE_LIMIT (1200). */
  credentialRateLimit?: number;
  /** CloudWatch namespace of the service's own metrics. Default: METRICS_NAMESPACE. */
  metricsNamespace?: string;
  /**
   * Any new value (a timestamp) makes every function re-read the secrets (CloudFormation resolves
   * their references only when a function changes): the last step of rotating one.
   */
  secretsRotatedAt?: string;
  /**
   * During a rotation: also give the functions the previous value of the webhook secret key and
   * of the OAuth key seed (Secrets Manager's AWSPREVIOUS), so secrets sealed before it still open
   * and tokens signed before it still verify. Needs a previous version to exist.
   */
  keepPreviousKeys?: boolean;
  /**
   * Serve from this existing table instead of the stack's own: a table restored from a backup
   * (docs/operations.md, "Backup and restore"), with its stream (NEW_AND_OLD_IMAGES) turned on.
   * The stack's own table is then left alone (it is retained, never deleted).
   */
  restoredTable?: { tableName: string; streamArn: string };
  /**
   * The address invitations and password resets are sent from, through Amazon SES (its identity
   * verified there, and the account out of the SES sandbox to mail anyone). Unset: messages wait
   * in the platform operator's outbox (`GET /api/v1/platform/organizations/{slug}/outbox`).
   */
  mailFrom?: string;
  /** The SES identity `mailFrom` is verified under: a domain or the address. Default: the address's domain. */
  mailIdentity?: string;
  /** An SES configuration set to send with (event publishing, dedicated IPs). Default: none. */
  mailConfigurationSet?: string;
  /** `true` turns on X-Ray active tracing for every function. Default: off. */
  tracing?: boolean;
  /** The functions to deploy. Default: the route table's `functionGroups` (tests synthesize larger tables). */
  functionGroups?: readonly FunctionDefinition[];
}

/**
 * The API stage's default throttle, for every route: a ceiling that keeps one runaway client or
 * script from spending the account's Lambda concurrency (API Gateway's account limit is 10,000
 * requests per second); the service's own per-route limits (sign-in, registration, OAuth) apply
 * below it. Raise it by context when real traffic needs more.
 */
export const API_THROTTLE = { rateLimit: 1000, burstLimit: 2000 };

/** The default CloudWatch namespace of the metrics the functions publish (lib/core/telemetry.ts). */
export const METRICS_NAMESPACE = 'WorkManagement';

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
 * Source maps carry mappings only, not the sources, and are not read at cold start (no
 * `--enable-source-maps`): a logged error's stack is mapped when it is logged, reading the map on
 * the first error a container logs (lib/core/stack-map.ts).
 */
export const BUNDLING: BundlingOptions = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  format: OutputFormat.ESM,
  target: 'node24',
  externalModules: [],
  mainFields: ['module', 'main'],
  // Some dependencies are CommonJS and call `require`, which ESM output lacks.
  banner: "import { createRequire } from 'module';const require = createRequire(import.meta.url);",
};

export class WorkManagementStack extends Stack {
  readonly table: dynamodb.ITable;
  readonly webhookQueue: sqs.Queue;
  readonly httpApi: HttpApi;
  readonly functions = new Map<string, NodejsFunction>();

  constructor(scope: Construct, id: string, props: WorkManagementStackProps = {}) {
    super(scope, id, props);

    this.table = props.restoredTable
      ? dynamodb.Table.fromTableAttributes(this, 'RestoredTable', { tableName: props.restoredTable.tableName, tableStreamArn: props.restoredTable.streamArn })
      : createTable(this);
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
    const stage = configureStage(this, this.httpApi, { rateLimit: props.apiRateLimit ?? API_THROTTLE.rateLimit, burstLimit: props.apiBurstLimit ?? API_THROTTLE.burstLimit });

    // Created lazily: only needed when the route table has a stream consumer.
    let streamFailures: sqs.Queue | undefined;

    const groups = props.functionGroups ?? functionGroups;
    const tableResources = tableResourcesOf(this.table);
    for (const group of groups) {
      const fn = createFunction(this, group, {
        TABLE_NAME: this.table.tableName,
        BASE_DOMAIN: props.baseDomain ?? '',
        // The template holds only a `{{resolve:secretsmanager:…}}` dynamic reference, which
        // CloudFormation resolves at deploy time; the plaintext never appears in the template
        // or the cloud assembly. (It does end up in the function's configuration, encrypted at
        // rest; reading it per cold start from Secrets Manager would add latency and a
        // dependency for no gain in this threat model. Rotating it needs a redeploy.)
        JWT_SECRET: jwtSecret.secretValue.unsafeUnwrap(),
        // Logs and metrics name the function by its route-table name (a metric dimension).
        FUNCTION_GROUP: group.name,
        METRICS_NAMESPACE: props.metricsNamespace ?? METRICS_NAMESPACE,
        SIGNUP_ENABLED: String(props.signupEnabled ?? true),
        CREDENTIAL_RATE_LIMIT: String(props.credentialRateLimit ?? DEFAULT_CREDENTIAL_RATE_LIMIT),
        ...(props.webhookRetryDelaysSeconds
          ? { WEBHOOK_RETRY_DELAYS_SECONDS: props.webhookRetryDelaysSeconds }
          : {}),
        ...(sendsToWebhookQueue(group) || group.kind === 'queue' ? { WEBHOOK_QUEUE_URL: webhookQueue.queueUrl } : {}),
        ...(group.kind === 'queue' ? { WEBHOOK_DLQ_URL: webhookDeadLetters.queueUrl } : {}),
        // The key that seals webhook secrets goes only to the functions that seal or open them.
        ...(sealsWebhookSecrets(group) ? { WEBHOOK_SECRET_KEY: webhookSecretKey.secretValue.unsafeUnwrap() } : {}),
        ...(sealsWebhookSecrets(group) && props.keepPreviousKeys ? { WEBHOOK_SECRET_KEY_PREVIOUS: previousValue(webhookSecretKey) } : {}),
        // The seed of the OAuth signing key goes only to the functions that issue tokens.
        ...(signsOAuthTokens(group) ? { OAUTH_SIGNING_KEY_SEED: oauthKeySeed.secretValue.unsafeUnwrap() } : {}),
        ...(signsOAuthTokens(group) && props.keepPreviousKeys ? { OAUTH_SIGNING_KEY_SEED_PREVIOUS: previousValue(oauthKeySeed) } : {}),
        ...(props.secretsRotatedAt ? { SECRETS_ROTATED_AT: props.secretsRotatedAt } : {}),
        // The operator token hash is given only to the functions that serve platform routes.
        ...(isPlatform(group) ? { PLATFORM_ADMIN_TOKEN_SHA256: props.platformAdminTokenSha256 ?? '' } : {}),
        // The sender goes only to the functions that send mail (lib/mail).
        ...(sendsMail(group) && props.mailFrom ? { MAIL_FROM: props.mailFrom } : {}),
        ...(sendsMail(group) && props.mailFrom && props.mailConfigurationSet ? { MAIL_CONFIGURATION_SET: props.mailConfigurationSet } : {}),
      }, props.tracing === true);
      if (sendsMail(group) && props.mailFrom) grantSendMail(this, fn, props.mailFrom, props.mailIdentity, props.mailConfigurationSet);
      this.functions.set(group.name, fn);
      grantAccess(tableResources, webhookQueue, group, fn);

      switch (group.kind) {
        case 'http': {
          const routes = addHttpRoutes(this, this.httpApi, group, fn);
          // A route's own throttle is a stage setting naming the route, which must exist first.
          if (Object.values(group.routes).some((route) => route.edgeThrottle)) stage.node.addDependency(routes);
          break;
        }
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
    stage.routeSettings = edgeThrottles(groups);

    const alarmTopic = createAlarmTopic(this, props.alarmEmail);
    monitor(this, {
      topic: alarmTopic,
      api: this.httpApi,
      table: this.table,
      groups,
      functions: this.functions,
      deadLetterQueues: { webhook: webhookDeadLetters, ...(streamFailures ? { stream: streamFailures } : {}) },
      apiP99LatencyMs: props.alarmApiP99LatencyMs,
      metricsNamespace: props.metricsNamespace ?? METRICS_NAMESPACE,
    });
    acknowledgeFindings(this);

    this.addCustomDomain(props);

    new CfnOutput(this, 'ApiEndpoint', {
      description: 'Default endpoint of the HTTP API',
      value: this.httpApi.apiEndpoint,
    });
    new CfnOutput(this, 'TableName', { description: 'The single DynamoDB table', value: this.table.tableName });
    new CfnOutput(this, 'AlarmTopicArn', { description: 'Every alarm notifies this SNS topic: subscribe your on-call tooling', value: alarmTopic.topicArn });
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

/** The `$default` stage's access log (JSON, a month) and its default throttle for every route. */
function configureStage(scope: Construct, api: HttpApi, throttle: { rateLimit: number; burstLimit: number }): CfnStage {
  const accessLogs = new logs.LogGroup(scope, 'ApiAccessLogs', { retention: logs.RetentionDays.ONE_MONTH });
  const stage = api.defaultStage!.node.defaultChild as CfnStage;
  stage.accessLogSettings = { destinationArn: accessLogs.logGroupArn, format: ACCESS_LOG_FORMAT };
  stage.defaultRouteSettings = { throttlingRateLimit: throttle.rateLimit, throttlingBurstLimit: throttle.burstLimit };
  return stage;
}

/**
 * The stage settings of the routes that declare their own `edgeThrottle` (sign-in, sign-up,
 * OAuth): a ceiling for all callers together, below the stage default. The per-address limits
 * these routes also obey are counted by their handlers.
 */
export function edgeThrottles(groups: readonly FunctionDefinition[]): Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> {
  // The property is plain JSON to CloudFormation: its keys are written as the template spells them.
  const settings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
  for (const group of groups) {
    if (group.kind !== 'http') continue;
    for (const [routeKey, route] of Object.entries(group.routes)) {
      if (route.edgeThrottle) settings[routeKey] = { ThrottlingRateLimit: route.edgeThrottle.rateLimit, ThrottlingBurstLimit: route.edgeThrottle.burstLimit };
    }
  }
  return settings;
}

/** The single table, exactly as `tableDefinition()` derives it from the entities. */

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
    enforceSSL: true,
  });
  const queue = new sqs.Queue(scope, 'WebhookQueue', {
    visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
  });
  return { queue, deadLetterQueue };
}

/** Stream batches that still fail after all retries are parked here (metadata only) for inspection. */
function createStreamFailureQueue(scope: Construct): sqs.Queue {
  return new sqs.Queue(scope, 'StreamFailureQueue', {
    retentionPeriod: Duration.days(14),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
}

/** The HMAC key for session JWTs, generated by Secrets Manager so no one ever types it. */
function createJwtSecret(scope: Construct): secretsmanager.Secret {
  return new secretsmanager.Secret(scope, 'JwtSigningSecret', {
    description: 'Signing key of the session JWTs',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
  });
}

/** The secret's previous version (AWSPREVIOUS), as a dynamic reference CloudFormation resolves at deploy time. */
function previousValue(secret: secretsmanager.Secret): string {
  return SecretValue.secretsManager(secret.secretArn, { versionStage: 'AWSPREVIOUS' }).unsafeUnwrap();
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
  if (group.kind !== 'http' || (!group.embeds?.length && !group.assets?.length && !group.aliases && !group.builtFolder)) return BUNDLING;
  const files = [...writeEmbeddedFiles(group), ...(group.assets ?? []).map((asset) => path.join(repoRoot, 'node_modules', asset))];
  const folder = group.builtFolder ? { name: group.builtFolder.name, from: group.builtFolder.build() } : undefined;
  const aliases = Object.entries(group.aliases ?? {}).map(([specifier, file]) => [`--alias:${specifier}`, path.join(repoRoot, file)] as const);
  if (files.length === 0 && !folder) return { ...BUNDLING, esbuildArgs: Object.fromEntries(aliases) };
  return {
    ...BUNDLING,
    ...(aliases.length ? { esbuildArgs: Object.fromEntries(aliases) } : {}),
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir: string, outputDir: string) => [
        ...files.map((file) => `cp "${file}" "${outputDir}/${path.basename(file)}"`),
        ...(folder ? [`cp -R "${folder.from}" "${outputDir}/${folder.name}"`] : []),
      ],
    },
  };
}

function createFunction(
  scope: Construct,
  group: FunctionDefinition,
  environment: Record<string, string>,
  tracing: boolean,
): NodejsFunction {
  const id = constructId(group.name);
  // An explicit log group (instead of the deprecated `logRetention`, which needs a custom
  // resource Lambda) so retention is a plain CloudFormation property.
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
  // Its own role, which may write to its own log group and nothing else until grantAccess
  // (instead of the AWS-managed basic execution role, which may write to every log group).
  const role = new iam.Role(scope, `${id}Role`, {
    description: `Role of the '${group.name}' function`,
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
  });
  logGroup.grantWrite(role);
  return new NodejsFunction(scope, `${id}Function`, {
    description: `${group.kind} function '${group.name}' (${group.entry})`,
    entry: path.join(repoRoot, group.entry),
    handler: 'handler',
    // Pin the lock file and project root so synthesis does not depend on the working directory.
    projectRoot: repoRoot,
    depsLockFilePath: path.join(repoRoot, 'package-lock.json'),
    runtime: lambda.Runtime.NODEJS_24_X,
    architecture: lambda.Architecture.ARM_64,
    ...SIZING[group.kind],
    bundling: bundlingOf(group),
    logGroup,
    role,
    ...(tracing ? { tracing: lambda.Tracing.ACTIVE } : {}),
    environment,
  });
}

/** What the code does with the table: reads (single items, batches, queries; never a Scan) and writes. */
export const TABLE_ACTIONS = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
} as const;

/** The table's ARN and each of its indexes' ARNs by name (derived once: `tableDefinition()` builds every entity). */
interface TableResources {
  tableArn: string;
  indexArns: string[];
}

function tableResourcesOf(table: dynamodb.ITable): TableResources {
  return { tableArn: table.tableArn, indexArns: tableDefinition().globalIndexes.map((index) => `${table.tableArn}/index/${index.indexName}`) };
}

/**
 * Least privilege: each function gets exactly the table and queue access its route-table entry
 * declares, on the table and each of its indexes by name (no wildcard resource, no Scan).
 */
function grantAccess(table: TableResources, webhookQueue: sqs.Queue, group: FunctionDefinition, fn: lambda.IFunction): void {
  if (group.table !== 'none') {
    const actions = group.table === 'read' ? TABLE_ACTIONS.read : [...TABLE_ACTIONS.read, ...TABLE_ACTIONS.write];
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...actions], resources: [table.tableArn] }));
    // Indexes are only queried.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: table.indexArns }));
  }
  if (sendsToWebhookQueue(group)) webhookQueue.grantSendMessages(fn);
}

/**
 * One Lambda integration per HTTP group and one API Gateway route per 'METHOD /path' string,
 * in a nested stack of the group's own: CloudFormation allows 500 resources per stack, and the
 * routes are most of them. The parent stack holds one resource per group whatever its number of
 * routes; each route keeps its own route key (its own throttle, 404 at the edge).
 */
function addHttpRoutes(scope: Construct, api: HttpApi, group: HttpGroup, fn: lambda.IFunction): NestedStack {
  const routesStack = new NestedStack(scope, `${constructId(group.name)}Routes`, { description: `API routes of the '${group.name}' function` });
  Validations.of(routesStack).acknowledge({
    id: 'AwsSolutions::AwsSolutions-APIG4',
    reason: 'Requests are authenticated and authorized by the service itself (session, personal, agent and OAuth credentials; permission groups; token restrictions), route by route, and some routes are public by the specification (sign-in, OAuth discovery).',
  });
  const integration = new HttpLambdaIntegration(`${constructId(group.name)}Integration`, fn, {
    // One invoke permission for the whole API instead of one per route: a permission per route
    // doubles the resource count (CloudFormation allows 500 per stack) and grows the function's
    // resource policy, which has a size limit. The function only serves its own routes anyway.
    scopePermissionToRoute: false,
  });
  for (const route of routeKeysOf(group)) {
    if (route === '$default') {
      // Requests no other route matches: the service answers them in its own error envelope.
      new HttpRoute(routesStack, 'DefaultRoute', { httpApi: api, routeKey: HttpRouteKey.DEFAULT, integration });
      continue;
    }
    const { method, path: routePath } = parseRoute(route);
    // '/' separates construct ids; the route key is otherwise a stable, unique id.
    new HttpRoute(routesStack, route.replaceAll('/', '|'), { httpApi: api, routeKey: HttpRouteKey.with(routePath, method), integration });
  }
  return routesStack;
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
function subscribeToTableStream(table: dynamodb.ITable, fn: lambda.IFunction, failures: sqs.IQueue): void {
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

function sendsMail(group: FunctionDefinition): boolean {
  return group.kind === 'http' && group.sendsMail === true;
}

/** `ses:SendEmail` from the sender's identity alone (and its configuration set, when one is named). */
function grantSendMail(stack: Stack, fn: lambda.IFunction, from: string, identity: string | undefined, configurationSet: string | undefined): void {
  const resources = [
    stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity ?? from.split('@')[1]! }),
    ...(configurationSet ? [stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: configurationSet })] : []),
  ];
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['ses:SendEmail'], resources, conditions: { StringEquals: { 'ses:FromAddress': from } } }));
}

function isPlatform(group: FunctionDefinition): boolean {
  return group.kind === 'http' && group.platform === true;
}

/**
 * The cdk-nag findings (test/infra/nag.test.ts) this stack accepts, each with its reason. Every
 * other finding fails the test.
 */
function acknowledgeFindings(stack: Stack): void {
  const acknowledge = (id: string, reason: string) => Validations.of(stack).acknowledge({ id, reason });
  acknowledge('AwsSolutions::AwsSolutions-L1', 'The runtime is decided: nodejs24.x, the version the code is built and tested for (docs/operations.md); moving to a newer one is a deliberate upgrade.');
  acknowledge('Serverless::Serverless-LambdaLatestVersion', 'As AwsSolutions-L1: nodejs24.x is the decided runtime.');
  acknowledge('Serverless::Serverless-LambdaTracing', 'X-Ray tracing costs per trace and is off by default; context `tracing=true` turns it on for every function (docs/operations.md).');
  acknowledge(
    'Serverless::Serverless-LambdaDLQ',
    'No function is invoked asynchronously with work to lose: HTTP functions answer their caller, the stream consumer parks failed batches in its failure queue, the webhook worker parks deliveries in the dead-letter queue itself, and the sweeper repeats every minute (a missed run raises the missed-runs alarm).',
  );
  acknowledge('Serverless::Serverless-EventBusDLQ', 'The schedule only starts the sweeper, which repeats every minute; a missed run raises the missed-runs alarm.');
  acknowledge('AwsSolutions::AwsSolutions-SMG4', 'The secrets are read at deploy time into the functions\' configuration; docs/operations.md describes rotating each one (a new value and a redeploy) and what rotation does.');
  acknowledge('Serverless::Serverless-SQSRedrivePolicy', 'Only the dead-letter queues have no redrive policy: they are the end of the line, and an alarm fires as soon as one holds a message.');
  acknowledge('Serverless::Serverless-LambdaEventSourceMappingDestination', 'The webhook queue\'s own redrive policy is the failure destination of its event source: a message received too often goes to the dead-letter queue, which alarms.');
  acknowledge('AwsSolutions::AwsSolutions-SQS3', 'The stream failure queue is itself a dead-letter destination (of the table stream) and alarms when not empty.');
  acknowledge('AwsSolutions::AwsSolutions-IAM5[Resource::*]', 'dynamodb:ListStreams (granted by the stream event source) has no resource-level permissions; it is the only action on `*`.');
}
