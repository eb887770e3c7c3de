import { describe, it, expect } from 'vitest';
import { App, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { WorkManagementStack } from '../../infra/stack.js';

/**
 * cdk-nag's AwsSolutions and Serverless packs over the synthesized stack and its nested stacks.
 * A finding fails synthesis unless the stack acknowledges it, with its reason, beside the
 * construct (infra/stack.ts `acknowledgeFindings`, infra/monitoring.ts, the routes' nested stacks).
 */
function synthWithChecks(props: ConstructorParameters<typeof WorkManagementStack>[2]): () => void {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  new WorkManagementStack(app, 'NagStack', props);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return () => app.synth();
}

describe('cdk-nag', () => {
  it('finds nothing unacknowledged in the stack as deployed with every option', () => {
    expect(
      synthWithChecks({
        baseDomain: 'api.example.com',
        certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
        platformAdminTokenSha256: 'a'.repeat(64),
        alarmEmail: 'oncall@example.com',
        tracing: true,
      }),
    ).not.toThrow();
  });

  it('finds nothing unacknowledged in the stack with no options', () => {
    expect(synthWithChecks({})).not.toThrow();
  });

  it('fails synthesis on a finding nobody acknowledged', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new WorkManagementStack(app, 'NagStack', {});
    // A queue without the TLS-only policy the stack gives its own queues.
    new sqs.Queue(stack, 'Careless');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/NagStack\/Careless.*AwsSolutions-SQS4/s);
  });
});
