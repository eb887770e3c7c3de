import { AppError } from '../core/errors.js';
import { guarded, transact, type TransactionEntities } from './transact.js';

/**
 * Fixed-window rate limits. A window is one RateWindow item per (scope, key, window start),
 * removed by TTL an hour after it ends. Counting is a conditional ADD (`count < limit`), so
 * concurrent callers can never pass the limit; the item's partition is the key itself, so no
 * partition is shared between organizations or callers.
 */
export interface RateWindowRef {
  /** The organization the limit belongs to, or a deployment-wide scope (e.g. `ip`). */
  scope: string;
  key: string;
  limit: number;
  windowSeconds: number;
  start: number;
  end: number;
}

export function rateWindow(scope: string, key: string, limit: number, windowSeconds: number, now: Date): RateWindowRef {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const start = nowSeconds - (nowSeconds % windowSeconds);
  return { scope, key, limit, windowSeconds, start, end: start + windowSeconds };
}

/**
 * 429 RATE_LIMITED with Retry-After (the seconds until the window ends) and the IETF
 * `RateLimit-Policy` / `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers): the policy
 * is named after the key's first part (`login`, `oauth-token`, …), `q` its quota per `w`
 * seconds, `r` what remains (none) and `t` the seconds until it resets.
 */
export function rateLimited(window: RateWindowRef, now: Date, message = `At most ${window.limit} calls per ${describeSeconds(window.windowSeconds)}; retry later`): AppError {
  const retryAfter = Math.max(1, window.end - Math.floor(now.getTime() / 1000));
  const policy = window.key.split('#')[0];
  return new AppError(429, 'RATE_LIMITED', message, { limit: window.limit, retryAfterSeconds: retryAfter }, {
    'Retry-After': String(retryAfter),
    'RateLimit-Policy': `"${policy}";q=${window.limit};w=${window.windowSeconds}`,
    RateLimit: `"${policy}";r=0;t=${retryAfter}`,
  });
}

const itemKey = (window: RateWindowRef) => ({ orgId: window.scope, key: window.key, windowStart: String(window.start) });

/** The transaction item that counts one call, failing its condition when the window is full. */
export function countCall(e: TransactionEntities, window: RateWindowRef, now: Date, message?: string) {
  return guarded(
    e.rateWindow
      .update(itemKey(window))
      .add({ count: 1 })
      .set({ ttl: window.end + 3600 })
      .where((attr, op) => `${op.notExists(attr.count)} OR ${op.lt(attr.count, window.limit)}`)
      .commit(),
    () => rateLimited(window, now, message),
  );
}

/** The transaction item that gives a counted call back (it turned out not to count, e.g. a successful sign-in). */
export function uncountCall(e: TransactionEntities, window: RateWindowRef) {
  return e.rateWindow.update(itemKey(window)).add({ count: -1 }).commit();
}

/** Counts one call against every window at once (all or none), or answers 429 for the first full one. */
export async function consumeRateLimits(windows: RateWindowRef[], now: Date, message?: string): Promise<void> {
  await transact((e) => windows.map((window) => countCall(e, window, now, message)));
}

/** Counts one call against `limit` calls per `windowSeconds` for one key of an organization. */
export async function consumeRateLimit(orgId: string, key: string, limit: number, windowSeconds: number, now: Date): Promise<void> {
  await consumeRateLimits([rateWindow(orgId, key, limit, windowSeconds, now)], now);
}

function describeSeconds(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour(s)`;
  return `${Math.round(seconds / 60)} minutes`;
}
