import { describe, it, expect } from 'vitest';
import { App, type CfnElement, type NestedStack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { API_THROTTLE, WorkManagementStack, type WorkManagementStackProps } from '../../infra/stack.js';
import { allRouteKeys, constructId, functionGroups, httpGroups, queues, routeKeysOf, type HttpGroup } from '../../infra/route-table.js';
import { tableDefinition } from '../../lib/db/schema.js';

type Resource = { Type: string; Properties: Record<string, any> };

const cloudProps: WorkManagementStackProps = {
  baseDomain: 'api.example.com',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
  platformAdminTokenSha256: 'a'.repeat(64),
};

function synthStack(props: WorkManagementStackProps): WorkManagementStack {
  // An empty bundling-stacks list makes NodejsFunction skip esbuild: the template is what we
  // assert on, and bundling every function would make this test slow.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new WorkManagementStack(app, 'TestStack', props);
}

const synth = (props: WorkManagementStackProps): Template => Template.fromStack(synthStack(props));

/** The nested stack holding one HTTP group's integration and routes. */
const routesStackOf = (stack: WorkManagementStack, group: HttpGroup): NestedStack => stack.node.findChild(`${constructId(group.name)}Routes`) as NestedStack;

/**
 * The routes of one HTTP group, each with the function its integration invokes (the logical id
 * in the parent stack, followed through the nested stack's parameter).
 */
function routesOf(stack: WorkManagementStack, parent: Template, group: HttpGroup): { routeKey: string; functionId: string }[] {
  const nested = routesStackOf(stack, group);
  const template = Template.fromStack(nested);
  const integrations = template.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>;
  const nestedResource = parent.toJSON().Resources[stack.getLogicalId(nested.nestedStackResource as CfnElement)] as Resource;
  return (Object.values(template.findResources('AWS::ApiGatewayV2::Route')) as Resource[]).map((route) => {
    const integration = integrations[route.Properties.Target['Fn::Join'][1][1].Ref as string]!;
    const parameter = integration.Properties.IntegrationUri.Ref as string;
    return { routeKey: route.Properties.RouteKey as string, functionId: nestedResource.Properties.Parameters[parameter]['Fn::GetAtt'][0] as string };
  });
}

/** The service's own functions (CDK may add helper functions with another runtime). */
function serviceFunctions(template: Template): Record<string, Resource> {
  return template.findResources('AWS::Lambda::Function', {
    Properties: { Runtime: 'nodejs24.x', Architectures: ['arm64'] },
  }) as Record<string, Resource>;
}

/** Maps a synthesized function back to its route-table group via its description. */
function groupNameOf(fn: Resource): string {
  const match = /function '([^']+)'/.exec(String(fn.Properties.Description));
  if (!match) throw new Error(`Function without a route-table description: ${fn.Properties.Description}`);
  return match[1];
}

function functionOf(template: Template, groupName: string): [string, Resource] {
  const found = Object.entries(serviceFunctions(template)).filter(([, fn]) => groupNameOf(fn) === groupName);
  expect(found).toHaveLength(1);
  return found[0];
}

/** Every IAM action the function's role is granted. */
function policyActionsOf(template: Template, fn: Resource): string[] {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((role: { Ref?: string }) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
    .flatMap((statement: { Action: string | string[] }) => [statement.Action].flat());
}

describe('WorkManagementStack with a custom domain', () => {
  const stack = synthStack(cloudProps);
  const template = Template.fromStack(stack);
  const definition = tableDefinition();

  it('creates exactly one DynamoDB table with the key schema, GSIs, TTL, stream and PITR of tableDefinition()', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    const [table] = Object.values(template.findResources('AWS::DynamoDB::Table')) as (Resource & {
      DeletionPolicy?: string;
    })[];
    const props = table.Properties;

    expect(props.KeySchema).toEqual([
      { AttributeName: definition.partitionKey, KeyType: 'HASH' },
      { AttributeName: definition.sortKey, KeyType: 'RANGE' },
    ]);
    expect(props.BillingMode).toBe('PAY_PER_REQUEST');
    expect(props.TimeToLiveSpecification).toEqual({ AttributeName: definition.ttlAttribute, Enabled: true });
    expect(props.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(props.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(table.DeletionPolicy).toBe('Retain');

    expect(props.GlobalSecondaryIndexes).toHaveLength(definition.globalIndexes.length);
    for (const index of definition.globalIndexes) {
      expect(props.GlobalSecondaryIndexes).toContainEqual({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      });
    }
    const keyNames = [
      definition.partitionKey,
      definition.sortKey,
      ...definition.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
    ];
    for (const name of new Set(keyNames)) {
      expect(props.AttributeDefinitions).toContainEqual({ AttributeName: name, AttributeType: 'S' });
    }
  });

  it('redrives webhook messages to an encrypted dead-letter queue after maxReceiveCount receives', () => {
    const webhookQueues = template.findResources('AWS::SQS::Queue', {
      Properties: { RedrivePolicy: Match.objectLike({ maxReceiveCount: queues.webhook.maxReceiveCount }) },
    }) as Record<string, Resource>;
    expect(Object.keys(webhookQueues)).toHaveLength(1);
    const [queue] = Object.values(webhookQueues);
    expect(queue.Properties.VisibilityTimeout).toBe(queues.webhook.visibilityTimeoutSeconds);
    expect(queue.Properties.SqsManagedSseEnabled).toBe(true);

    const dlqLogicalId = queue.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
    const dlq = (template.findResources('AWS::SQS::Queue') as Record<string, Resource>)[dlqLogicalId];
    expect(dlq).toBeDefined();
    expect(dlq.Properties.MessageRetentionPeriod).toBe(queues.webhook.deadLetter.retentionDays * 24 * 60 * 60);
    expect(dlq.Properties.SqsManagedSseEnabled).toBe(true);
  });

  it('creates one function per route-table group', () => {
    const functions = Object.values(serviceFunctions(template));
    expect(functions).toHaveLength(functionGroups.length);
    expect(functions.map(groupNameOf).sort()).toEqual(functionGroups.map((group) => group.name).sort());
    for (const fn of functions) {
      expect(fn.Properties.Handler).toBe('index.handler');
      expect(fn.Properties.Environment.Variables).toMatchObject({
        TABLE_NAME: { Ref: expect.any(String) },
        BASE_DOMAIN: 'api.example.com',
        SIGNUP_ENABLED: 'true',
      });
      // No source-map processing at cold start: a logged error's stack is mapped when it is logged (lib/core/stack-map.ts).
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
      // A dynamic reference resolved by CloudFormation, never the secret itself.
      expect(JSON.stringify(fn.Properties.Environment.Variables.JWT_SECRET)).toContain('{{resolve:secretsmanager:');
    }
  });

  it('gives the webhook secret key only to the functions that seal webhook secrets, as a dynamic reference', () => {
    for (const group of functionGroups) {
      const [, fn] = functionOf(template, group.name);
      const key = fn.Properties.Environment.Variables.WEBHOOK_SECRET_KEY;
      if ((group.kind === 'http' || group.kind === 'queue') && group.sealsWebhookSecrets) expect(JSON.stringify(key)).toContain('{{resolve:secretsmanager:');
      else expect(key, group.name).toBeUndefined();
    }
  });

  it('gives the OAuth signing key seed only to the functions that issue tokens, as a dynamic reference', () => {
    for (const group of functionGroups) {
      const [, fn] = functionOf(template, group.name);
      const seed = fn.Properties.Environment.Variables.OAUTH_SIGNING_KEY_SEED;
      if (group.kind === 'http' && group.signsOAuthTokens) expect(JSON.stringify(seed)).toContain('{{resolve:secretsmanager:');
      else expect(seed, group.name).toBeUndefined();
    }
  });

  it('sizes HTTP functions for requests and background functions for batch work', () => {
    for (const group of functionGroups) {
      const [, fn] = functionOf(template, group.name);
      expect(fn.Properties.MemorySize).toBe(group.kind === 'http' ? 512 : 256);
      expect(fn.Properties.Timeout).toBe({ http: 10, queue: 30, stream: 60, schedule: 60 }[group.kind]);
    }
  });

  it('keeps function logs and the API access log for one month', () => {
    template.resourceCountIs('AWS::Logs::LogGroup', functionGroups.length + 1);
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('creates one API Gateway route per route string of the route table, each group in a nested stack of its own', () => {
    const routeKeys = httpGroups().flatMap((group) => routesOf(stack, template, group).map((route) => route.routeKey));
    expect(routeKeys.sort()).toEqual([...allRouteKeys()].sort());
    template.resourceCountIs('AWS::ApiGatewayV2::Route', 0);
    template.resourceCountIs('AWS::CloudFormation::Stack', httpGroups().length);
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: '$default', AutoDeploy: true });
  });

  it('routes each path to the function of its group', () => {
    for (const group of httpGroups()) {
      const [functionId] = functionOf(template, group.name);
      const routes = routesOf(stack, template, group);
      expect(routes.map((route) => route.routeKey).sort()).toEqual(routeKeysOf(group).sort());
      for (const route of routes) expect(route.functionId, route.routeKey).toBe(functionId);
    }
  });

  it('feeds the table stream to each stream consumer with bisecting retries and a failure queue', () => {
    const consumers = functionGroups.filter((group) => group.kind === 'stream');
    const queueConsumers = functionGroups.filter((group) => group.kind === 'queue');
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', consumers.length + queueConsumers.length);
    for (const group of consumers) {
      const [functionId] = functionOf(template, group.name);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: functionId },
        EventSourceArn: { 'Fn::GetAtt': [Match.anyValue(), 'StreamArn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 100,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } } },
        // Only outbox inserts reach the consumer.
        FilterCriteria: {
          Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { __edb_e__: { S: ['event'] } } } }) }],
        },
      });
    }
  });

  it('runs each scheduled function on its EventBridge rate', () => {
    const scheduled = functionGroups.filter((group) => group.kind === 'schedule');
    template.resourceCountIs('AWS::Events::Rule', scheduled.length);
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    for (const group of scheduled) {
      const [functionId] = functionOf(template, group.name);
      template.hasResourceProperties('AWS::Events::Rule', {
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })],
      });
    }
  });

  it('serves the API on the wildcard custom domain with the given certificate', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: '*.api.example.com',
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: cloudProps.certificateArn })],
    });
    template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    template.hasOutput('DnsTarget', {});
    template.hasOutput('ApiEndpoint', {});
    template.hasOutput('TableName', {});
  });

  it('gives the read-only health function no write access to the table (least privilege)', () => {
    const [, health] = functionOf(template, 'health');
    const actions = policyActionsOf(template, health);
    expect(actions).toContain('dynamodb:GetItem');
    expect(actions).toContain('dynamodb:Query');
    for (const write of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      expect(actions).not.toContain(write);
    }
    expect(actions.some((action) => action.startsWith('sqs:'))).toBe(false);
  });

  it('hands unmatched requests to the fallback function through the $default route, which has no table access', () => {
    const [fallbackId, fallback] = functionOf(template, 'fallback');
    const fallbackGroup = httpGroups().find((group) => group.name === 'fallback')!;
    expect(routesOf(stack, template, fallbackGroup)).toEqual([{ routeKey: '$default', functionId: fallbackId }]);
    const actions = policyActionsOf(template, fallback);
    expect(actions.some((action) => action.startsWith('dynamodb:'))).toBe(false);
  });

  it('gives the webhook queue URL only to groups that send to the webhook queue or consume it', () => {
    for (const group of functionGroups) {
      const [, fn] = functionOf(template, group.name);
      const sends = ('sendsToWebhookQueue' in group && group.sendsToWebhookQueue === true) || group.kind === 'queue';
      expect('WEBHOOK_QUEUE_URL' in fn.Properties.Environment.Variables, group.name).toBe(sends);
      expect('WEBHOOK_DLQ_URL' in fn.Properties.Environment.Variables, group.name).toBe(group.kind === 'queue');
    }
  });

  it('triggers the webhook delivery function from the webhook queue with partial batch responses, and lets it park messages in the dead-letter queue', () => {
    const [functionId, fn] = functionOf(template, 'webhook-delivery');
    const queuesById = template.findResources('AWS::SQS::Queue') as Record<string, Resource>;
    const [queueId] = Object.entries(queuesById).find(([, queue]) => queue.Properties.RedrivePolicy)!;
    const dlqId = queuesById[queueId]!.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId },
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // The queue hides a message at least as long as the function may run.
    expect(queuesById[queueId]!.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(fn.Properties.Timeout);
    expect(fn.Properties.Environment.Variables.WEBHOOK_DLQ_URL).toEqual({ Ref: dlqId });
    const actions = policyActionsOf(template, fn);
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:SendMessage']) expect(actions).toContain(action);
  });

  it('gives PLATFORM_ADMIN_TOKEN_SHA256 only to groups with platform: true', () => {
    const platformGroups = functionGroups.filter((group) => group.kind === 'http' && group.platform === true);
    expect(platformGroups.length).toBeGreaterThan(0);
    for (const group of functionGroups) {
      const [, fn] = functionOf(template, group.name);
      const variables = fn.Properties.Environment.Variables;
      if (platformGroups.includes(group)) {
        expect(variables.PLATFORM_ADMIN_TOKEN_SHA256).toBe('a'.repeat(64));
      } else {
        expect(variables).not.toHaveProperty('PLATFORM_ADMIN_TOKEN_SHA256');
      }
    }
  });
});

describe('mail through SES', () => {
  it('gives the sender, and ses:SendEmail from its identity alone, only to the functions that send mail, and only when a sender is set', () => {
    const withMail = synth({ ...cloudProps, mailFrom: 'noreply@mail.example.com', mailConfigurationSet: 'work-mail' });
    const without = synth(cloudProps);
    for (const group of functionGroups) {
      const sends = group.kind === 'http' && group.sendsMail === true;
      const [, fn] = functionOf(withMail, group.name);
      const statements = (Object.values(withMail.findResources('AWS::IAM::Policy')) as Resource[])
        .filter((policy) => policy.Properties.Roles.some((role: { Ref?: string }) => role.Ref === fn.Properties.Role['Fn::GetAtt'][0]))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[])
        .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('ses:')));
      if (!sends) {
        expect(fn.Properties.Environment.Variables, group.name).not.toHaveProperty('MAIL_FROM');
        expect(statements, group.name).toEqual([]);
        continue;
      }
      expect(fn.Properties.Environment.Variables).toMatchObject({ MAIL_FROM: 'noreply@mail.example.com', MAIL_CONFIGURATION_SET: 'work-mail' });
      expect(statements).toHaveLength(1);
      expect(statements[0]!.Action).toBe('ses:SendEmail');
      expect(JSON.stringify(statements[0]!.Resource)).toContain(':identity/mail.example.com');
      expect(JSON.stringify(statements[0]!.Resource)).toContain(':configuration-set/work-mail');
      expect(statements[0]!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'noreply@mail.example.com' } });
      expect(functionOf(without, group.name)[1].Properties.Environment.Variables).not.toHaveProperty('MAIL_FROM');
    }
    expect(functionGroups.filter((group) => group.kind === 'http' && group.sendsMail).map((group) => group.name).sort()).toEqual(['auth', 'users']);
  });
});

describe('the API stage and the table, guarded at the edge', () => {
  const stageOf = (template: Template) => Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0] as Resource;

  it('writes a JSON access log line per request that names no header, query string or body', () => {
    const stage = stageOf(synth(cloudProps));
    const settings = stage.Properties.AccessLogSettings;
    expect(settings.DestinationArn).toBeDefined();
    const format = JSON.parse(settings.Format) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', routeKey: '$context.routeKey', status: '$context.status', ip: '$context.identity.sourceIp' });
    for (const variable of Object.values(format)) expect(variable).not.toMatch(/header|authorization|cookie|querystring|requestbody/i);
  });

  it('throttles every route by default, and by context when given', () => {
    expect(stageOf(synth(cloudProps)).Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: API_THROTTLE.rateLimit, ThrottlingBurstLimit: API_THROTTLE.burstLimit });
    expect(stageOf(synth({ ...cloudProps, apiRateLimit: 50, apiBurstLimit: 80 })).Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 });
  });

  it('protects the table from deletion and keeps it when the stack goes', () => {
    const template = synth(cloudProps);
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', Properties: Match.objectLike({ DeletionProtectionEnabled: true }) });
  });
});

describe('operable: alarms, a dashboard, least privilege and headroom', () => {
  const stack = synthStack({ ...cloudProps, alarmEmail: 'oncall@example.com' });
  const template = Template.fromStack(stack);
  const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
  const topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0]!;
  const metricNames = (alarm: Resource): string[] =>
    alarm.Properties.MetricName ? [alarm.Properties.MetricName] : (alarm.Properties.Metrics as { MetricStat?: { Metric: { MetricName: string } } }[]).flatMap((metric) => (metric.MetricStat ? [metric.MetricStat.Metric.MetricName] : []));

  it('notifies one SNS topic, which refuses plain HTTP and mails the alarmEmail address, of every alarm firing and clearing', () => {
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com', TopicArn: { Ref: topicId } });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions, alarm.Properties.AlarmDescription).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.AlarmDescription).toMatch(/docs\/operations\.md/);
    }
    synth(cloudProps).resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('alarms on dead letters, each function\'s errors and throttles, API 5xx and latency, stream lag, missed sweeps and table throttling', () => {
    const named = (pattern: RegExp) => alarms.filter((alarm) => pattern.test(alarm.Properties.AlarmDescription));
    expect(named(/dead-letter queue is not empty/)).toHaveLength(2);
    for (const alarm of named(/dead-letter queue is not empty/)) expect(alarm.Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 0 });
    for (const group of functionGroups) {
      const [alarm] = named(new RegExp(`The '${group.name}' function failed or was throttled`));
      expect(alarm, group.name).toBeDefined();
      expect(metricNames(alarm!).sort()).toEqual(['Errors', 'Throttles']);
    }
    const [fiveXx] = named(/were 5xx for 5 minutes/);
    expect(metricNames(fiveXx!).sort()).toEqual(['5xx', 'Count']);
    expect(fiveXx!.Properties).toMatchObject({ Threshold: 1, EvaluationPeriods: 5, DatapointsToAlarm: 5 });
    expect(named(/p99 latency was above 2500 ms/)[0]!.Properties).toMatchObject({ MetricName: 'Latency', ExtendedStatistic: 'p99' });
    expect(named(/stream consumer is more than 60 s behind/)[0]!.Properties).toMatchObject({ MetricName: 'IteratorAge', Threshold: 60_000 });
    expect(named(/'sweeper' function did not run/)[0]!.Properties).toMatchObject({ MetricName: 'Invocations', TreatMissingData: 'breaching', ComparisonOperator: 'LessThanThreshold' });
    expect(new Set(metricNames(named(/DynamoDB throttled requests/)[0]!))).toEqual(new Set(['ThrottledRequests']));
    expect(alarms).toHaveLength(functionGroups.length + 7);
  });

  it('draws the same signals on one dashboard', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard')) as Resource[];
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]!.Properties.DashboardBody);
    for (const metric of ['5xx', 'Latency', 'Errors', 'Throttles', 'ApproximateNumberOfMessagesVisible', 'IteratorAge', 'Invocations', 'ThrottledRequests']) expect(body).toContain(metric);
  });

  it('throttles sign-in, sign-up and the OAuth routes below the stage default, after their routes exist', () => {
    const [stageId, stage] = Object.entries(template.findResources('AWS::ApiGatewayV2::Stage'))[0] as [string, Resource & { DependsOn: string[] }];
    const settings = stage.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    expect(Object.keys(settings).sort()).toEqual(
      ['POST /api/v1/auth/login', 'POST /api/v1/auth/signup', 'POST /api/v1/auth/password-reset', 'POST /api/v1/auth/password-reset/confirm', 'POST /api/v1/invitations/accept', 'POST /api/v1/oauth/register', 'GET /api/v1/oauth/authorize', 'POST /api/v1/oauth/authorize/sign-in', 'POST /api/v1/oauth/authorize/sign-out', 'POST /api/v1/oauth/authorize/consent', 'POST /api/v1/oauth/token', 'POST /api/v1/oauth/revoke'].sort(),
    );
    for (const limit of Object.values(settings)) {
      expect(limit.ThrottlingRateLimit).toBeLessThan(API_THROTTLE.rateLimit);
      expect(limit.ThrottlingBurstLimit).toBeLessThan(API_THROTTLE.burstLimit);
    }
    expect(settings['POST /api/v1/auth/signup']!.ThrottlingRateLimit).toBeLessThanOrEqual(5);
    const groupsWithThrottles = httpGroups().filter((group) => Object.values(group.routes).some((route) => route.edgeThrottle));
    expect(groupsWithThrottles.map((group) => group.name).sort()).toEqual(['auth', 'oauth', 'users']);
    for (const group of groupsWithThrottles) expect(stage.DependsOn, stageId).toContain(stack.getLogicalId(routesStackOf(stack, group).nestedStackResource as CfnElement));
  });

  it('grants no wildcard action, the table and each index by name (never a Scan), and a wildcard resource only where the action has no other', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
    const statements = policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
    expect(actions).not.toContain('dynamodb:Scan');
    for (const statement of statements) {
      const resources = JSON.stringify(statement.Resource);
      if (resources === '"*"') expect([statement.Action].flat()).toEqual(['dynamodb:ListStreams']);
      else expect(resources).not.toMatch(/\/\*|:\*"/);
    }
    template.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
    for (const role of Object.values(template.findResources('AWS::IAM::Role')) as Resource[]) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('refuses plain-HTTP access to every queue, and keeps every queue encrypted', () => {
    const queueIds = Object.keys(template.findResources('AWS::SQS::Queue'));
    template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy')) as Resource[];
    const guarded = policies
      .filter((policy) => (policy.Properties.PolicyDocument.Statement as { Effect: string; Condition?: unknown }[]).some((statement) => statement.Effect === 'Deny' && JSON.stringify(statement.Condition) === JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } })))
      .flatMap((policy) => (policy.Properties.Queues as { Ref: string }[]).map((queue) => queue.Ref));
    expect(guarded.sort()).toEqual(queueIds.sort());
  });

  it('turns on X-Ray tracing only when asked', () => {
    for (const fn of Object.values(serviceFunctions(template))) expect(fn.Properties.TracingConfig).toBeUndefined();
    for (const fn of Object.values(serviceFunctions(synth({ ...cloudProps, tracing: true })))) expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
  });

  it('gives the previous webhook key and OAuth seed only during a rotation, and re-reads secrets when secretsRotatedAt changes', () => {
    const variables = (template: Template) => Object.values(serviceFunctions(template)).map((fn) => fn.Properties.Environment.Variables as Record<string, unknown>);
    for (const env of variables(template)) {
      expect(env).not.toHaveProperty('WEBHOOK_SECRET_KEY_PREVIOUS');
      expect(env).not.toHaveProperty('OAUTH_SIGNING_KEY_SEED_PREVIOUS');
      expect(env).not.toHaveProperty('SECRETS_ROTATED_AT');
    }
    const rotating = variables(synth({ ...cloudProps, keepPreviousKeys: true, secretsRotatedAt: '1795000000' }));
    for (const env of rotating) {
      expect(env.SECRETS_ROTATED_AT).toBe('1795000000');
      expect('WEBHOOK_SECRET_KEY_PREVIOUS' in env).toBe('WEBHOOK_SECRET_KEY' in env);
      expect('OAUTH_SIGNING_KEY_SEED_PREVIOUS' in env).toBe('OAUTH_SIGNING_KEY_SEED' in env);
      for (const name of ['WEBHOOK_SECRET_KEY_PREVIOUS', 'OAUTH_SIGNING_KEY_SEED_PREVIOUS']) {
        if (name in env) expect(JSON.stringify(env[name])).toMatch(/\{\{resolve:secretsmanager:.*:SecretString::AWSPREVIOUS:\}\}/);
      }
    }
    expect(rotating.filter((env) => 'WEBHOOK_SECRET_KEY_PREVIOUS' in env).length).toBeGreaterThan(0);
  });

  it('serves from a restored table when told to, leaving the stack\'s own table out of the template (retained, not deleted)', () => {
    const streamArn = 'arn:aws:dynamodb:eu-west-1:123456789012:table/restored-2026-11-25/stream/2026-11-25T10:00:00.000';
    const restored = synth({ ...cloudProps, restoredTable: { tableName: 'restored-2026-11-25', streamArn } });
    restored.resourceCountIs('AWS::DynamoDB::Table', 0);
    for (const fn of Object.values(serviceFunctions(restored))) expect(fn.Properties.Environment.Variables.TABLE_NAME).toBe('restored-2026-11-25');
    restored.hasResourceProperties('AWS::Lambda::EventSourceMapping', { EventSourceArn: streamArn });
    const statements = JSON.stringify(Object.values(restored.findResources('AWS::IAM::Policy')));
    expect(statements).toContain(':table/restored-2026-11-25');
    expect(statements).toContain(':table/restored-2026-11-25/index/gsi1');
  });

  it('uses at most 60 % of CloudFormation\'s 500 resources per stack, and stays under 500 with twice the routes', () => {
    const count = (t: Template) => Object.keys(t.toJSON().Resources).length;
    expect(count(template)).toBeLessThanOrEqual(300);
    for (const group of httpGroups()) expect(count(Template.fromStack(routesStackOf(stack, group)))).toBeLessThanOrEqual(300);

    // Every HTTP group serving each of its routes twice over (under /copy).
    const doubled = functionGroups.map((group) =>
      group.kind !== 'http'
        ? group
        : { ...group, routes: { ...group.routes, ...Object.fromEntries(Object.entries(group.routes).filter(([key]) => key !== '$default').map(([key, route]) => [key.replace(' /', ' /copy/').replace(/\/$/, ''), route])) } },
    );
    const bigger = synthStack({ ...cloudProps, alarmEmail: 'oncall@example.com', functionGroups: doubled });
    const biggerTemplate = Template.fromStack(bigger);
    expect(count(biggerTemplate)).toBe(count(template));
    let routes = 0;
    for (const group of doubled.filter((candidate): candidate is HttpGroup => candidate.kind === 'http')) {
      const nested = Template.fromStack(routesStackOf(bigger, group));
      routes += Object.keys(nested.findResources('AWS::ApiGatewayV2::Route')).length;
      expect(count(nested)).toBeLessThan(500);
    }
    expect(routes).toBe(2 * allRouteKeys().length - 1);
  });
});

describe('WorkManagementStack without a base domain', () => {
  it('creates no custom domain and still outputs the API endpoint', () => {
    const template = synth({});
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 0);
    template.hasOutput('ApiEndpoint', {});
    for (const fn of Object.values(serviceFunctions(template))) {
      expect(fn.Properties.Environment.Variables.BASE_DOMAIN).toBe('');
    }
  });
});
