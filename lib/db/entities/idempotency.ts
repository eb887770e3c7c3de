import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * The first answer to a write sent with an idempotency key (lib/db/idempotency.ts), kept for
 * 24 hours. One partition per organization and actor: keys belong to them, and no partition is
 * shared between callers. The key itself is stored only as a hash, the answer only sealed.
 */
export const IdempotencyRecord = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'idempotencyRecord', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    actorId: { type: 'string', required: true },
    /** SHA-256 (hex) of the key the client sent. */
    keyHash: { type: 'string', required: true },
    /** SHA-256 (hex) of what the key was sent with (method, path and body; or the tool and its arguments). */
    payloadHash: { type: 'string', required: true },
    /** IN_PROGRESS while the first request runs; COMMITTED once its work took effect; COMPLETED once its answer is kept. */
    status: { type: ['IN_PROGRESS', 'COMMITTED', 'COMPLETED'] as const, required: true },
    /** What the work's transactions created, as `entity:id` (`ticket:tkt_…`): named to a repeat when the answer was lost. */
    created: { type: 'set', items: 'string' },
    /** The request that holds the key while it runs. */
    requestId: { type: 'string', required: true },
    /** Epoch milliseconds after which a request still IN_PROGRESS is taken to have died: its key is free again. */
    inProgressUntil: { type: 'number', required: true },
    /** The answer (JSON), deflated and sealed with AES-256-GCM under the service's key. */
    answer: { type: 'string' },
    createdAt: { type: 'string', required: true },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    byKey: { pk: { field: 'pk', composite: ['orgId', 'actorId'] }, sk: { field: 'sk', composite: ['keyHash'] } },
  },
}, config);
export type IdempotencyRecordItem = EntityItem<ReturnType<typeof IdempotencyRecord>>;
