import { outboundRequest } from '../core/outbound.js';

/** A receiver has 10 seconds to answer (connection, TLS and response headers together). */
export const DELIVERY_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'work-management-webhooks/1';

export interface PostResult {
  /** The response's status, or 0 when there was none. */
  statusCode: number;
  success: boolean;
  /** Why the attempt failed, in a few words (never the response body). */
  error?: string;
  /** `Retry-After` of a 429 or 503, in seconds. */
  retryAfterSeconds?: number;
  durationMs: number;
  /** A 2xx response's body, when the caller asked for it (`responseBodyBytes`). */
  responseBody?: string;
}

export interface PostOptions {
  /** Admits loopback addresses (WEBHOOK_ALLOW_LOOPBACK, local development and tests only). */
  allowLoopback?: boolean;
  timeoutMs?: number;
  now?: () => Date;
  /** Reads the response body up to this many bytes (a larger one fails the attempt); unset: dropped. */
  responseBodyBytes?: number;
}

/**
 * POSTs one webhook delivery through the SSRF-guarded outbound request (lib/core/outbound.ts).
 * Redirects are never followed (a 3xx is a failure); only a 2xx is a success.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, options: PostOptions = {}): Promise<PostResult> {
  const response = await outboundRequest(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body,
    timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    ...(options.responseBodyBytes ? { maxBodyBytes: options.responseBodyBytes } : {}),
    ...(options.allowLoopback !== undefined ? { allowLoopback: options.allowLoopback } : {}),
  });
  const { statusCode, durationMs } = response;
  if (response.error) return { statusCode, success: false, error: response.error, durationMs };
  const success = statusCode >= 200 && statusCode < 300;
  const retryAfter = response.headers['retry-after'];
  const retryAfterSeconds = statusCode === 429 || statusCode === 503 ? parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, options.now?.() ?? new Date()) : undefined;
  return {
    statusCode,
    success,
    ...(success ? {} : { error: statusCode >= 300 && statusCode < 400 ? `redirect (${statusCode}) not followed` : `HTTP ${statusCode}` }),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    durationMs,
    ...(success && response.body ? { responseBody: response.body.toString('utf8') } : {}),
  };
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
