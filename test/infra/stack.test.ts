import { describe, it, expect } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { API_THROTTLE, WorkManagementStack, type WorkManagementStackProps } from '../../infra/stack.js';
import { allRouteKeys, functionGroups, queues, routeKeysOf } from '../../infra/route-table.js';
import { tableDefinition } from '../../lib/db/schema.js';

type Resource = { Type: string; Properties: Record<string, any> };

const cloudProps: WorkManagementStackProps = {
  baseDomain: 'api.example.com',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
  platformAdminTokenSha256: 'a'.repeat(64),
};

function synth(props: WorkManagementStackProps): Template {
  // An empty bundling-stacks list makes NodejsFunction skip esbuild: the template is what we
  // assert on, and bundling every function would make this test slow.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(new WorkManagementStack(app, 'TestStack', props));
}

/** The service's own functions (CDK may add helper functions with another runtime). */
function serviceFunctions(template: Template): Record<string, Resource> {
  return template.findResources('AWS::Lambda::Function', {
    Properties: { Runtime: 'nodejs22.x', Architectures: ['arm64'] },
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
  const template = synth(cloudProps);
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
        NODE_OPTIONS: '--enable-source-maps',
        SIGNUP_ENABLED: 'true',
      });
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

  it('creates one API Gateway route per route string of the route table', () => {
    const expected = allRouteKeys();
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')) as Resource[];
    expect(routes.map((route) => route.Properties.RouteKey).sort()).toEqual([...expected].sort());
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: '$default', AutoDeploy: true });
  });

  it('routes each path to the function of its group', () => {
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>;
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')) as Resource[];
    for (const group of functionGroups) {
      if (group.kind !== 'http') continue;
      const [functionId] = functionOf(template, group.name);
      for (const routeKey of routeKeysOf(group)) {
        const route = routes.find((candidate) => candidate.Properties.RouteKey === routeKey)!;
        const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
        expect(integrations[integrationId].Properties.IntegrationUri).toEqual({
          'Fn::GetAtt': [functionId, 'Arn'],
        });
      }
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
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')) as Resource[];
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>;
    const route = routes.find((candidate) => candidate.Properties.RouteKey === '$default')!;
    const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
    expect(integrations[integrationId].Properties.IntegrationUri).toEqual({ 'Fn::GetAtt': [fallbackId, 'Arn'] });
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
