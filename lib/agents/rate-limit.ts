import { Entity } from 'electrodb';
import { AppError } from '../core/errors.js';
import { config } from '../core/config.js';
import { documentDb } from '../db/client.js';
import { isConditionFailure } from '../db/transact.js';
import { RateWindow } from '../db/entities/rate-window.js';

// Standalone until RateWindow is registered in lib/db/schema.ts (owned by the lead).
let rateWindow: typeof RateWindow | undefined;
function entity(): typeof RateWindow {
  rateWindow ??= new Entity(RateWindow.schema as never, { client: documentDb(), table: config().tableName }) as unknown as typeof RateWindow;
  return rateWindow;
}

/**
 * Counts one call against `limit` calls per `windowSeconds` (fixed window) with one
 * conditional UpdateItem, so concurrent callers can never exceed the limit.
 * Throws 429 RATE_LIMITED with Retry-After (seconds until the window ends).
 */
export async function consumeRateLimit(orgId: string, key: string, limit: number, windowSeconds: number, now: Date): Promise<void> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const start = nowSeconds - (nowSeconds % windowSeconds);
  const end = start + windowSeconds;
  try {
    await entity()
      .update({ orgId, key, windowStart: String(start) })
      .add({ count: 1 })
      .set({ ttl: end + 3600 })
      .where((attr, op) => `${op.notExists(attr.count)} OR ${op.lt(attr.count, limit)}`)
      .go({ response: 'none' });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const retryAfter = Math.max(1, end - nowSeconds);
    throw new AppError(429, 'RATE_LIMITED', `At most ${limit} calls per ${windowSeconds / 3600} hour(s); retry later`, { limit, retryAfterSeconds: retryAfter }, {
      'Retry-After': String(retryAfter),
    });
  }
}
