/**
 * The CDK app (cdk.json: `npx tsx infra/app.ts`). Settings come from CDK context, either
 * cdk.json or `cdk synth -c baseDomain=api.example.com …`:
 *
 *   baseDomain                 organizations are served at <slug>.<baseDomain>
 *   certificateArn             ACM certificate for *.<baseDomain> (custom domain needs both)
 *   platformAdminTokenSha256   hex SHA-256 of the platform operator's bearer token
 *   webhookRetryDelaysSeconds  comma list (or JSON array) replacing the webhook retry schedule
 *   signupEnabled              false turns off self-service signup (default true)
 *   apiRateLimit               steady requests per second the API admits (default 1000)
 *   apiBurstLimit              burst above that rate (default 2000)
 *   alarmEmail                 an address the alarm topic mails (it confirms the subscription)
 *   alarmApiP99LatencyMs       the API p99 latency that raises its alarm (default 2500)
 *   tracing                    true turns on X-Ray active tracing (default off)
 *   metricsNamespace           CloudWatch namespace of the service's metrics (default WorkManagement)
 *   credentialRateLimit        requests a minute per credential, 0 for none (default 1200)
 *   secretsRotatedAt           any new value makes the functions re-read the secrets (rotation)
 *   keepPreviousKeys           true also gives the previous webhook key and OAuth seed (rotation)
 *   restoredTableName          serve from this table (restored from a backup) instead of the stack's
 *   restoredTableStreamArn     its stream's ARN (both or neither)
 *   mailFrom                   the address invitations and password resets come from (Amazon SES);
 *                              unset: they wait in the platform operator's outbox
 *   mailIdentity               the SES identity mailFrom is verified under (default: its domain)
 *   mailConfigurationSet       an SES configuration set to send with (default: none)
 *
 * Synthesis runs cdk-nag (AwsSolutions and Serverless): a finding nobody acknowledged, with
 * its reason, beside the construct, stops `cdk synth` and `cdk deploy`.
 *
 * An empty string means "unset", so cdk.json can list every key without setting it.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { WorkManagementStack } from './stack.js';

const app = new App();

const context = (key: string): unknown => app.node.tryGetContext(key);

function optionalString(key: string): string | undefined {
  const value = context(key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Error(`Context '${key}' must be a string`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** `-c key=false` arrives as a string, cdk.json may hold a real boolean: accept both. */
function optionalBoolean(key: string): boolean | undefined {
  const value = context(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`Context '${key}' must be true or false`);
}

function optionalDelays(key: string): string | undefined {
  const value = context(key);
  if (value === undefined || value === null || value === '') return undefined;
  const list = Array.isArray(value) ? value.map(String) : String(value).split(',');
  const delays = list.map((item) => item.trim());
  if (delays.length === 0 || delays.some((delay) => !/^\d+$/.test(delay) || Number(delay) <= 0)) {
    throw new Error(`Context '${key}' must be a comma list of positive whole seconds`);
  }
  return delays.join(',');
}

function optionalPositiveInteger(key: string): number | undefined {
  const value = context(key);
  if (value === undefined || value === null || value === '') return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new Error(`Context '${key}' must be a positive whole number`);
  return number;
}

function optionalEmail(key: string): string | undefined {
  const value = optionalString(key);
  if (value !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) throw new Error(`Context '${key}' must be an e-mail address`);
  return value;
}

function optionalWholeNumber(key: string): number | undefined {
  const value = context(key);
  if (value === undefined || value === null || value === '') return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`Context '${key}' must be a whole number (0 or more)`);
  return number;
}

function restoredTable(): { tableName: string; streamArn: string } | undefined {
  const tableName = optionalString('restoredTableName');
  const streamArn = optionalString('restoredTableStreamArn');
  if (!tableName && !streamArn) return undefined;
  if (!tableName || !streamArn || !/^arn:aws[\w-]*:dynamodb:[^:]+:\d{12}:table\/[^/]+\/stream\/.+$/.test(streamArn)) {
    throw new Error("Context 'restoredTableName' and 'restoredTableStreamArn' go together: the restored table's name and its stream's ARN");
  }
  return { tableName, streamArn };
}

const platformAdminTokenSha256 = optionalString('platformAdminTokenSha256')?.toLowerCase();
if (platformAdminTokenSha256 && !/^[0-9a-f]{64}$/.test(platformAdminTokenSha256)) {
  // Catch the common mistake of passing the token itself instead of its hash.
  throw new Error("Context 'platformAdminTokenSha256' must be a hex SHA-256 digest (64 characters)");
}

const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;

new WorkManagementStack(app, 'WorkManagementStack', {
  description: 'Work-management API: API Gateway HTTP API, Lambda, DynamoDB single table, SQS webhooks',
  // Environment-agnostic when the CLI could not determine an account/region (e.g. offline).
  env: account || region ? { account, region } : undefined,
  baseDomain: optionalString('baseDomain'),
  certificateArn: optionalString('certificateArn'),
  platformAdminTokenSha256,
  signupEnabled: optionalBoolean('signupEnabled'),
  webhookRetryDelaysSeconds: optionalDelays('webhookRetryDelaysSeconds'),
  apiRateLimit: optionalPositiveInteger('apiRateLimit'),
  apiBurstLimit: optionalPositiveInteger('apiBurstLimit'),
  alarmEmail: optionalEmail('alarmEmail'),
  alarmApiP99LatencyMs: optionalPositiveInteger('alarmApiP99LatencyMs'),
  tracing: optionalBoolean('tracing'),
  metricsNamespace: optionalString('metricsNamespace'),
  credentialRateLimit: optionalWholeNumber('credentialRateLimit'),
  secretsRotatedAt: optionalString('secretsRotatedAt'),
  keepPreviousKeys: optionalBoolean('keepPreviousKeys'),
  restoredTable: restoredTable(),
  mailFrom: optionalEmail('mailFrom'),
  mailIdentity: optionalString('mailIdentity'),
  mailConfigurationSet: optionalString('mailConfigurationSet'),
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
