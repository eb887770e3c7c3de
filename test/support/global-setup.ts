import type { TestProject } from 'vitest/node';
import { startLocalRuntime, type LocalRuntime } from '../../infra/local/runtime.js';

let runtime: LocalRuntime | undefined;

/**
 * One local runtime (DynamoDB Local, local SQS, the API Gateway stand-in, the stream
 * poller) for the whole run. Test files isolate themselves by signing up their own
 * organizations, so they can share it.
 */
export async function setup(project: TestProject): Promise<void> {
  runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, validateResponses: true, logRequests: false, sweeperIntervalSeconds: 3600, trustForwardedFor: true });
  project.provide('baseUrl', runtime.baseUrl);
  project.provide('platformAdminToken', runtime.platformAdminToken);
  project.provide('dynamoEndpoint', runtime.dynamoEndpoint);
  project.provide('tableName', runtime.tableName);
  project.provide('jwtSecret', process.env.JWT_SECRET!);
  project.provide('runtimeEnv', runtime.env);
}

export async function teardown(): Promise<void> {
  await runtime?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    platformAdminToken: string;
    dynamoEndpoint: string;
    tableName: string;
    jwtSecret: string;
    /** The functions' environment in the shared runtime, for test files that call them in process. */
    runtimeEnv: Record<string, string>;
  }
}
