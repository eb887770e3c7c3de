import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../core/config.js';
import { documentDb } from './client.js';

/** Anything with ElectroDB's get(...).params() and parse(...). */
interface GettableEntity {
  get(key: Record<string, unknown>): { params(): { Key: Record<string, unknown> } };
  parse(response: { Item?: Record<string, unknown> }): { data: unknown } | null;
}

export interface KeyRequest {
  entity: GettableEntity;
  key: Record<string, unknown>;
}

/**
 * Reads items of different entities in one strongly consistent BatchGetItem per 100 keys
 * (plus a retry for unprocessed keys, which DynamoDB returns only under throttling). Results come back in
 * request order; a missing item is undefined.
 */
export async function batchGetMixed(requests: KeyRequest[]): Promise<unknown[]> {
  const keys = requests.map((request) => request.entity.get(request.key).params().Key);
  const unique = dedupe(keys);
  const found = new Map<string, Record<string, unknown>>();
  // BatchGetItem takes at most 100 keys; larger sets go out as parallel calls.
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < unique.length; start += MAX_KEYS_PER_CALL) chunks.push(unique.slice(start, start + MAX_KEYS_PER_CALL));
  await Promise.all(chunks.map((chunk) => fetchInto(found, chunk)));
  return requests.map((request, index) => {
    const item = found.get(keyId(keys[index]!));
    return item ? request.entity.parse({ Item: item })?.data ?? undefined : undefined;
  });
}

const MAX_KEYS_PER_CALL = 100;

async function fetchInto(found: Map<string, Record<string, unknown>>, keys: Record<string, unknown>[]): Promise<void> {
  const table = config().tableName;
  let pending = keys;
  for (let attempt = 0; pending.length > 0 && attempt < 5; attempt += 1) {
    const response = await documentDb().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
    for (const item of response.Responses?.[table] ?? []) found.set(keyId(item), item);
    pending = (response.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
  }
  if (pending.length > 0) throw new Error('BatchGetItem left keys unprocessed');
}

const keyId = (item: Record<string, unknown>): string => `${String(item.pk)}\u0000${String(item.sk)}`;

function dedupe(keys: Record<string, unknown>[]): Record<string, unknown>[] {
  const seen = new Map<string, Record<string, unknown>>();
  for (const key of keys) seen.set(keyId(key), key);
  return [...seen.values()];
}
