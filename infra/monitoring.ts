/**
 * What a platform team watches: the alarm topic, the alarms and the dashboard. Every alarm
 * notifies the one SNS topic (when it fires and when it clears); docs/operations.md says what
 * each one means and what to do. Everything is derived from the route table, so a new function
 * is watched without a line here.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { constructId, type FunctionDefinition } from './route-table.js';

/** Thresholds that context can change. */
export const ALARM_DEFAULTS = {
  /** p99 of the API's latency, over five minutes, above which the latency alarm fires. */
  apiP99LatencyMs: 2500,
  /** Share of API responses that are 5xx, over five minutes, above which the error alarm fires. */
  api5xxPercent: 1,
  /** How far the stream consumer may fall behind the table before its alarm fires. */
  streamIteratorAgeMs: 60_000,
};

export interface Monitored {
  topic: sns.ITopic;
  api: HttpApi;
  table: dynamodb.ITable;
  groups: readonly FunctionDefinition[];
  functions: ReadonlyMap<string, lambda.Function>;
  deadLetterQueues: Record<string, sqs.Queue>;
  apiP99LatencyMs?: number;
  /** Where the functions publish their own metrics (lib/core/telemetry.ts). */
  metricsNamespace: string;
}

/** The topic every alarm notifies; `alarmEmail` subscribes an address to it. */
export function createAlarmTopic(scope: Construct, alarmEmail?: string): sns.Topic {
  const topic = new sns.Topic(scope, 'AlarmTopic', { displayName: 'Work-management alarms', enforceSSL: true });
  if (alarmEmail) {
    const subscription = new sns.Subscription(scope, 'AlarmEmail', { topic, protocol: sns.SubscriptionProtocol.EMAIL, endpoint: alarmEmail });
    Validations.of(subscription).acknowledge({
      id: 'Serverless::Serverless-SNSRedrivePolicy',
      reason: 'A mail SNS cannot deliver is retried by SNS and then lost, but the alarm it announced stays visible in CloudWatch and on the dashboard; a dead-letter queue for notifications would itself need watching.',
    });
  }
  Validations.of(topic).acknowledge({
    id: 'AwsSolutions::AwsSolutions-SNS2',
    reason: 'Alarm notifications carry only alarm names and metric values, no customer data; CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer-managed key for this alone is not worth its cost.',
  });
  return topic;
}

const minutes = (count: number) => Duration.minutes(count);

/** Every DynamoDB operation the functions use (an alarm's expression takes at most 10 metrics). */
const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
  dynamodb.Operation.TRANSACT_GET_ITEMS,
];

/** Creates every alarm, wired to the topic, and the dashboard showing the same signals. */
export function monitor(scope: Construct, target: Monitored): void {
  const action = new actions.SnsAction(target.topic);
  const alarm = (id: string, props: Omit<cloudwatch.AlarmProps, 'actionsEnabled'>) => {
    const created = new cloudwatch.Alarm(scope, id, props);
    created.addAlarmAction(action);
    created.addOkAction(action);
    return created;
  };
  const { api, table } = target;

  // Dead-letter queues: anything in them is work the service gave up on.
  for (const [name, queue] of Object.entries(target.deadLetterQueues)) {
    alarm(`${constructId(name)}DeadLettersAlarm`, {
      alarmDescription: `The ${name} dead-letter queue is not empty: see docs/operations.md, "Dead letters".`,
      metric: queue.metricApproximateNumberOfMessagesVisible({ period: minutes(1), statistic: 'Maximum' }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  // Every function: an unhandled error, a timeout or a throttled invocation.
  for (const group of target.groups) {
    const fn = target.functions.get(group.name)!;
    alarm(`${constructId(group.name)}ErrorsAlarm`, {
      alarmDescription: `The '${group.name}' function failed or was throttled: see docs/operations.md, "Function errors and throttles".`,
      metric: new cloudwatch.MathExpression({
        expression: 'errors + throttles',
        usingMetrics: { errors: fn.metricErrors({ period: minutes(5) }), throttles: fn.metricThrottles({ period: minutes(5) }) },
        label: `${group.name} errors and throttles`,
        period: minutes(5),
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  // The API as its callers see it: the share of 5xx, and the slowest one percent.
  const requests = api.metricCount({ period: minutes(1), statistic: 'Sum' });
  const serverErrors = api.metricServerError({ period: minutes(1), statistic: 'Sum' });
  const serverErrorRate = new cloudwatch.MathExpression({
    expression: 'IF(requests > 0, 100 * errors / requests, 0)',
    usingMetrics: { requests, errors: serverErrors },
    label: 'API 5xx (%)',
    period: minutes(1),
  });
  alarm('Api5xxRateAlarm', {
    alarmDescription: `More than ${ALARM_DEFAULTS.api5xxPercent}% of API responses were 5xx for 5 minutes: see docs/operations.md, "API errors".`,
    metric: serverErrorRate,
    threshold: ALARM_DEFAULTS.api5xxPercent,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 5,
    datapointsToAlarm: 5,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  const p99 = api.metricLatency({ period: minutes(1), statistic: 'p99' });
  const latencyThreshold = target.apiP99LatencyMs ?? ALARM_DEFAULTS.apiP99LatencyMs;
  alarm('ApiLatencyAlarm', {
    alarmDescription: `The API's p99 latency was above ${latencyThreshold} ms for 5 minutes: see docs/operations.md, "API latency".`,
    metric: p99,
    threshold: latencyThreshold,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 5,
    datapointsToAlarm: 5,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });

  // Background work: the stream consumer keeping up, and the sweeper running.
  const iteratorAges: cloudwatch.IMetric[] = [];
  const sweeps: cloudwatch.IMetric[] = [];
  for (const group of target.groups) {
    const fn = target.functions.get(group.name)!;
    if (group.kind === 'stream') {
      const age = fn.metric('IteratorAge', { period: minutes(1), statistic: 'Maximum' });
      iteratorAges.push(age);
      alarm(`${constructId(group.name)}IteratorAgeAlarm`, {
        alarmDescription: `The '${group.name}' stream consumer is more than ${ALARM_DEFAULTS.streamIteratorAgeMs / 1000} s behind the table: see docs/operations.md, "Events falling behind".`,
        metric: age,
        threshold: ALARM_DEFAULTS.streamIteratorAgeMs,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    if (group.kind === 'schedule') {
      // Three missed runs in a row (at least 5 minutes): one late run is not worth a page.
      const window = minutes(Math.max(5, group.everyMinutes * 3));
      const runs = fn.metricInvocations({ period: window, statistic: 'Sum' });
      sweeps.push(runs);
      alarm(`${constructId(group.name)}MissedRunsAlarm`, {
        alarmDescription: `The '${group.name}' function did not run in ${window.toMinutes()} minutes: see docs/operations.md, "Missed sweeps".`,
        metric: runs,
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 1,
        // No data means no invocation: exactly what this alarm is for.
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      });
    }
  }

  // DynamoDB refusing requests (the table's or an index's limit), whatever the operation.
  const throttled = table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: minutes(1) });
  alarm('TableThrottlesAlarm', {
    alarmDescription: 'DynamoDB throttled requests to the table or an index: see docs/operations.md, "DynamoDB throttling".',
    metric: throttled,
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });

  // The service's own metrics, summed over functions (SEARCH finds every dimension combination).
  const own = (metricName: string, label: string, extraDimension?: string) =>
    new cloudwatch.MathExpression({
      expression: `SUM(SEARCH('{${target.metricsNamespace},${['function', 'service', ...(extraDimension ? [extraDimension] : [])].join(',')}} MetricName="${metricName}"', 'Sum', 60))`,
      usingMetrics: {},
      label,
      period: minutes(1),
    });
  const byStatusClass = new cloudwatch.MathExpression({
    expression: `SEARCH('{${target.metricsNamespace},function,service,statusClass} MetricName="Requests"', 'Sum', 60)`,
    usingMetrics: {},
    label: 'Requests',
    period: minutes(1),
  });

  const perFunction = (metric: (fn: lambda.Function) => cloudwatch.IMetric) => target.groups.map((group) => metric(target.functions.get(group.name)!));
  new cloudwatch.Dashboard(scope, 'Dashboard', {
    dashboardName: `${Stack.of(scope).stackName}-operations`,
    defaultInterval: Duration.hours(3),
    widgets: [
      [
        new cloudwatch.GraphWidget({ title: 'API requests and errors', left: [requests, api.metricClientError({ period: minutes(1), statistic: 'Sum' }), serverErrors], width: 8 }),
        new cloudwatch.GraphWidget({ title: 'API 5xx (%)', left: [serverErrorRate], leftAnnotations: [{ value: ALARM_DEFAULTS.api5xxPercent, label: 'alarm' }], width: 8 }),
        new cloudwatch.GraphWidget({
          title: 'API latency (ms)',
          left: [api.metricLatency({ period: minutes(1), statistic: 'p50' }), p99],
          leftAnnotations: [{ value: latencyThreshold, label: 'p99 alarm' }],
          width: 8,
        }),
      ],
      [
        new cloudwatch.GraphWidget({ title: 'Function errors', left: perFunction((fn) => fn.metricErrors({ period: minutes(5) })), legendPosition: cloudwatch.LegendPosition.RIGHT, width: 12 }),
        new cloudwatch.GraphWidget({ title: 'Function throttles', left: perFunction((fn) => fn.metricThrottles({ period: minutes(5) })), legendPosition: cloudwatch.LegendPosition.RIGHT, width: 12 }),
      ],
      [
        new cloudwatch.GraphWidget({
          title: 'Dead letters',
          left: Object.values(target.deadLetterQueues).map((queue) => queue.metricApproximateNumberOfMessagesVisible({ period: minutes(1), statistic: 'Maximum' })),
          width: 6,
        }),
        new cloudwatch.GraphWidget({ title: 'Stream iterator age (ms)', left: iteratorAges, leftAnnotations: [{ value: ALARM_DEFAULTS.streamIteratorAgeMs, label: 'alarm' }], width: 6 }),
        new cloudwatch.GraphWidget({ title: 'Sweeper runs', left: sweeps, width: 6 }),
        new cloudwatch.GraphWidget({ title: 'DynamoDB throttled requests', left: [throttled], width: 6 }),
      ],
      [
        new cloudwatch.GraphWidget({ title: 'Requests by function and status class', left: [byStatusClass], legendPosition: cloudwatch.LegendPosition.RIGHT, width: 8 }),
        new cloudwatch.GraphWidget({
          title: 'Claims',
          left: [own('ClaimsTaken', 'taken'), own('ClaimsRefused', 'refused', 'reason'), own('ClaimsExpired', 'expired')],
          width: 6,
        }),
        new cloudwatch.GraphWidget({
          title: 'Webhook deliveries',
          left: [own('WebhookAttempts', 'attempts'), own('WebhookFailures', 'failed attempts'), own('WebhookDeadLettered', 'dead-lettered')],
          width: 6,
        }),
        new cloudwatch.GraphWidget({ title: 'Sweeper clears', left: [own('SweeperClears', 'lapsed claims cleared')], width: 4 }),
      ],
    ],
  });
}
