import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../core/errors.js';
import { batchGetMixed } from './batch.js';
import { db } from './service.js';
import { guarded, isConditionFailure, transact, type TransactionEntities } from './transact.js';

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
  return new AppError('RATE_LIMITED', message, { limit: window.limit, retryAfterSeconds: retryAfter }, {
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
  await countInWindow(rateWindow(orgId, key, limit, windowSeconds, now), now);
}

/** What a counted call leaves of its window: for the `RateLimit-Policy` and `RateLimit` headers. */
export interface RateLimitState {
  policy: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

const reports = new AsyncLocalStorage<RateLimitState[]>();

/** What `count` calls leave of a window; the policy is named after the key's first part (`login-account`, `oauth-token`, …). */
function stateOf(window: RateWindowRef, count: number, now: Date): RateLimitState {
  return {
    policy: window.key.split('#')[0]!,
    limit: window.limit,
    windowSeconds: window.windowSeconds,
    remaining: Math.min(window.limit, Math.max(0, window.limit - count)),
    resetSeconds: Math.max(1, window.end - Math.floor(now.getTime() / 1000)),
  };
}

/** Runs one request, collecting into `states` the state of every window its calls were counted in. */
export function collectRateLimits<T>(states: RateLimitState[], fn: () => Promise<T>): Promise<T> {
  return reports.run(states, fn);
}

/**
 * Counts one call in one window with a single conditional UpdateItem that answers the new count
 * (one round trip, as the transaction it replaces), reports what remains, or refuses with 429.
 */
export async function countInWindow(window: RateWindowRef, now: Date, message?: string): Promise<RateLimitState> {
  try {
    const { data } = await db()
      .entities.rateWindow.update(itemKey(window))
      .add({ count: 1 })
      .set({ ttl: window.end + 3600 })
      .where((attr, op) => `${op.notExists(attr.count)} OR ${op.lt(attr.count, window.limit)}`)
      .go({ response: 'updated_new' });
    const state = stateOf(window, data.count ?? window.limit, now);
    reports.getStore()?.push(state);
    return state;
  } catch (error) {
    if (isConditionFailure(error)) throw rateLimited(window, now, message);
    throw error;
  }
}

/**
 * For calls counted inside a larger transaction (`countCall`, which cannot answer the new count):
 * reads the windows (one consistent BatchGetItem) and, when `report` is called, reports what each
 * has left, `givenBack` calls added back (a sign-in that succeeded returns its count).
 */
export async function readWindows(windows: RateWindowRef[], now: Date): Promise<{ report(givenBack?: number): void }> {
  const store = reports.getStore();
  if (!store || windows.length === 0) return { report: () => undefined };
  const items = (await batchGetMixed(windows.map((window) => ({ entity: db().entities.rateWindow, key: itemKey(window) })))) as ({ count?: number } | undefined)[];
  return {
    report: (givenBack = 0) => {
      store.push(...windows.map((window, index) => stateOf(window, (items[index]?.count ?? 0) - givenBack, now)));
    },
  };
}

/** As readWindows, reporting at once: after the transaction that counted the calls. */
export async function reportWindows(windows: RateWindowRef[], now: Date): Promise<void> {
  (await readWindows(windows, now)).report();
}

/**
 * The IETF headers for the windows a request was counted in: each policy in `RateLimit-Policy`,
 * and in `RateLimit` the one closest to its limit (the one the client must respect).
 */
export function rateLimitHeaders(states: RateLimitState[]): Record<string, string> {
  if (states.length === 0) return {};
  const tightest = states.reduce((a, b) => (b.remaining / b.limit < a.remaining / a.limit ? b : a));
  return {
    'RateLimit-Policy': states.map((state) => `"${state.policy}";q=${state.limit};w=${state.windowSeconds}`).join(', '),
    RateLimit: `"${tightest.policy}";r=${tightest.remaining};t=${tightest.resetSeconds}`,
  };
}

function describeSeconds(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour(s)`;
  return `${Math.round(seconds / 60)} minutes`;
}
