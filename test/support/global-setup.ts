import type { TestProject } from 'vitest/node';
import { startLocalRuntime, type LocalRuntime } from '../../infra/local/runtime.js';

/**
 * One local runtime (DynamoDB Local, local SQS, the API Gateway stand-in, the stream
 * poller) for the whole run. Test files isolate themselves by signing up their own
 * organizations, so they can share it. Each project of vitest.config.ts runs this setup;
 * the first starts the runtime, every one provides it, the last teardown stops it.
 */
const shared = globalThis as typeof globalThis & { testRuntime?: { started: Promise<LocalRuntime>; users: number } };

export async function setup(project: TestProject): Promise<void> {
  shared.testRuntime ??= {
    started: startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, validateResponses: true, logRequests: false, sweeperIntervalSeconds: 3600, trustForwardedFor: true }),
    users: 0,
  };
  shared.testRuntime.users += 1;
  const runtime = await shared.testRuntime.started;
  project.provide('baseUrl', runtime.baseUrl);
  project.provide('platformAdminToken', runtime.platformAdminToken);
  project.provide('dynamoEndpoint', runtime.dynamoEndpoint);
  project.provide('tableName', runtime.tableName);
  project.provide('jwtSecret', runtime.env.JWT_SECRET ?? process.env.JWT_SECRET!);
  project.provide('runtimeEnv', runtime.env);
}

export async function teardown(): Promise<void> {
  const runtime = shared.testRuntime;
  if (!runtime || --runtime.users > 0) return;
  shared.testRuntime = undefined;
  await (await runtime.started).stop();
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
