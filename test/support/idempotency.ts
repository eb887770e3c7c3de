import { sha256Hex } from '../../lib/core/ids.js';
import { db } from '../../lib/db/service.js';

/**
 * Holds an idempotency key as a first request still running would (lib/db/idempotency.ts): an
 * IN_PROGRESS record of another request, for the next 30 seconds.
 */
export async function holdIdempotencyKey(orgId: string, actorId: string, key: string, payload = 'of the first request'): Promise<void> {
  await db()
    .entities.idempotencyRecord.put({
      orgId,
      actorId,
      keyHash: sha256Hex(key),
      payloadHash: sha256Hex(payload),
      status: 'IN_PROGRESS',
      requestId: 'req_elsewhere',
      inProgressUntil: Date.now() + 30_000,
      createdAt: new Date().toISOString(),
      ttl: Math.floor(Date.now() / 1000) + 86_400,
    })
    .go();
}
