import { inject } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../infra/local/runtime.js';
import { useRuntime } from './api.js';

/**
 * A local runtime of its own for tests of outbound deliveries (webhooks, the time-booking
 * sync): its own table, loopback receivers admitted, retries after 1 s and 1 s; the API
 * helpers are pointed at it.
 */
export async function startDeliveryRuntime(tableName: string): Promise<LocalRuntime> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0,
    port: 0,
    dynamoEndpoint: inject('dynamoEndpoint'),
    tableName,
    logRequests: false,
    validateResponses: true,
    sweeperIntervalSeconds: 3600,
    webhookAllowLoopback: true,
    webhookRetryDelaysSeconds: [1, 1],
  });
  useRuntime(runtime);
  return runtime;
}
