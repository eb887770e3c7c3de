import { Logger } from '@aws-lambda-powertools/logger';
import { mappedStack } from './stack-map.js';

/*
 * Logs and metrics: one JSON log line per request, event batch, delivery attempt and sweep,
 * through Powertools for AWS Lambda's Logger; and CloudWatch metrics in the embedded metric
 * format (EMF), which CloudWatch reads from the function's log without a call at request time.
 * The EMF line is written here (a dozen lines) rather than by Powertools Metrics, whose 10 KiB
 * cost every function 0.01–0.02× of module init (docs/performance.md).
 *
 * What may be logged is decided by the callers of `log`, which pass named fields only: ids,
 * route keys, statuses, counts and durations. Never a token, password, secret, request body,
 * comment or page content, header or query string (test/http/npm-start.test.ts looks for them).
 *
 * The local runtime sets LOG_FORMAT=text: the same lines, one readable line each, and no metrics
 * (LOG_FORMAT=json prints exactly what a function prints in Lambda, metrics included).
 */

const SERVICE = 'work-management';
/** The function's name in the route table (set by the stack); the local runtime serves every function as `local`. */
const FUNCTION = process.env.FUNCTION_GROUP || 'local';
const NAMESPACE = process.env.METRICS_NAMESPACE || 'WorkManagement';
const readable = () => process.env.LOG_FORMAT === 'text';

const logger = new Logger({ serviceName: SERVICE, persistentKeys: { function: FUNCTION } });

/** A log line's fields: plain values the caller chose, nothing taken from a request wholesale. */
export type LogFields = Record<string, string | number | boolean | null | undefined | Record<string, number>>;

let coldStart = true;

/** True for the first invocation this module serves, false afterwards (one Lambda instance serves one invocation at a time). */
export function takeColdStart(): boolean {
  const first = coldStart;
  coldStart = false;
  return first;
}

function textLine(message: string, fields: LogFields): string {
  const parts = Object.entries(fields)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : /\s/.test(String(value)) ? JSON.stringify(value) : value}`);
  return `${new Date().toISOString().slice(11, 23)} ${message} ${parts.join(' ')}`.trimEnd();
}

export const log = {
  /** A unit of work done (a request, a batch, an attempt, a sweep); LOG_REQUESTS=false silences these (test runs). */
  info(message: string, fields: LogFields = {}): void {
    if (process.env.LOG_REQUESTS === 'false') return;
    if (readable()) console.log(textLine(message, fields));
    else logger.info(message, fields);
  },
  warn(message: string, fields: LogFields = {}): void {
    if (readable()) console.warn(textLine(`WARN ${message}`, fields));
    else logger.warn(message, fields);
  },
  /**
   * The error's stack (or its text) is logged: errors are built by our code and the SDKs, never
   * from a secret. A deployed bundle's frames are mapped to their sources here (lib/core/stack-map.ts).
   */
  error(message: string, fields: LogFields, error?: unknown): void {
    const detail = error instanceof Error ? (error.stack ? mappedStack(error.stack) : error.message) : error === undefined ? undefined : String(error);
    if (readable()) console.error(textLine(`ERROR ${message}`, { ...fields, error: detail }));
    else logger.error(message, { ...fields, ...(detail ? { error: detail } : {}) });
  },
};

/** The metrics the service publishes (namespace from the stack's `metricsNamespace` context). */
export type MetricName =
  | 'Requests'
  | 'Errors'
  | 'Latency'
  | 'ClaimsTaken'
  | 'ClaimsRefused'
  | 'ClaimsExpired'
  | 'ClaimNextEmpty'
  | 'ClaimNextPaused'
  | 'WebhookAttempts'
  | 'WebhookFailures'
  | 'WebhookDeadLettered'
  | 'SweeperClears';

/**
 * Publishes metrics now, as one EMF line (the embedded metric format: the `_aws` directive names
 * the namespace, the dimension set and each metric's unit; the values sit beside it), with the
 * dimensions `service` and `function` and any given here. Dimensions are low-cardinality only:
 * a status class, an outcome; never an organization, user or ticket id.
 */
export function publishMetrics(values: Partial<Record<MetricName, number>>, dimensions: Record<string, string> = {}): void {
  if (readable()) return;
  const entries = Object.entries(values).filter(([, value]) => value !== undefined) as [MetricName, number][];
  if (entries.length === 0) return;
  const dimensionValues = { service: SERVICE, function: FUNCTION, ...dimensions };
  const directive = {
    Timestamp: Date.now(),
    CloudWatchMetrics: [
      {
        Namespace: NAMESPACE,
        Dimensions: [Object.keys(dimensionValues)],
        Metrics: entries.map(([name]) => ({ Name: name, Unit: name === 'Latency' ? 'Milliseconds' : 'Count' })),
      },
    ],
  };
  process.stdout.write(`${JSON.stringify({ _aws: directive, ...dimensionValues, ...Object.fromEntries(entries) })}\n`);
}

/** One request's metrics: Requests and Latency by status class, Errors for a 5xx. */
export function publishRequestMetrics(status: number, ms: number): void {
  const statusClass = `${Math.floor(status / 100)}xx`;
  publishMetrics({ Requests: 1, Latency: ms, ...(status >= 500 ? { Errors: 1 } : {}) }, { statusClass });
}
