import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { isPublicAddress } from './addresses.js';

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
}

export interface PostOptions {
  /** Admits loopback addresses (WEBHOOK_ALLOW_LOOPBACK, local development and tests only). */
  allowLoopback?: boolean;
  timeoutMs?: number;
  now?: () => Date;
}

const LOOPBACK = (address: string) => address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';

class RefusedAddress extends Error {
  readonly code = 'ENOTPUBLIC';
  constructor(address: string) {
    super(`refused to connect to the non-public address ${address}`);
  }
}

/**
 * POSTs one webhook delivery. The SSRF guard runs where the connection is made: every address
 * the host name resolves to must be public (DNS lookup hook), and the socket's actual remote
 * address is checked again when it connects, before a byte of the request is written, so an
 * answer that changes between a check and the connection cannot reach a private address.
 * Redirects are never followed (a 3xx is a failure); only a 2xx is a success.
 */
export function postWebhook(url: string, headers: Record<string, string>, body: string, options: PostOptions = {}): Promise<PostResult> {
  const started = performance.now();
  const permitted = (address: string) => isPublicAddress(address) || (options.allowLoopback === true && LOOPBACK(address));
  const finish = (result: Omit<PostResult, 'durationMs'>): PostResult => ({ ...result, durationMs: Math.round(performance.now() - started) });

  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve(finish({ statusCode: 0, success: false, error: 'invalid URL' }));
      return;
    }
    const secure = target.protocol === 'https:';
    if (!secure && !(options.allowLoopback && target.protocol === 'http:')) {
      resolve(finish({ statusCode: 0, success: false, error: 'not an https:// URL' }));
      return;
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !permitted(host)) {
      resolve(finish({ statusCode: 0, success: false, error: new RefusedAddress(host).message }));
      return;
    }

    const guardedLookup = (hostname: string, lookupOptions: { all?: boolean; family?: number }, callback: (...args: any[]) => void) => {
      dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error);
        const refused = addresses.find((entry) => !permitted(entry.address));
        if (refused) return callback(new RefusedAddress(refused.address));
        if (lookupOptions.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    };

    let settled = false;
    const settle = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(finish(result));
    };

    const request = (secure ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT, 'content-length': String(Buffer.byteLength(body)) },
      lookup: guardedLookup as never,
      agent: false,
    });
    const timer = setTimeout(() => {
      settle({ statusCode: 0, success: false, error: `no response within ${(options.timeoutMs ?? DELIVERY_TIMEOUT_MS) / 1000} s` });
      request.destroy();
    }, options.timeoutMs ?? DELIVERY_TIMEOUT_MS);

    request.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        const address = socket.remoteAddress;
        if (!address || !permitted(address)) request.destroy(new RefusedAddress(address ?? 'unknown'));
      });
    });
    request.on('response', (response: IncomingMessage) => {
      const statusCode = response.statusCode ?? 0;
      const success = statusCode >= 200 && statusCode < 300;
      const retryAfterSeconds = statusCode === 429 || statusCode === 503 ? parseRetryAfter(response.headers['retry-after'], options.now?.() ?? new Date()) : undefined;
      settle({
        statusCode,
        success,
        ...(success ? {} : { error: statusCode >= 300 && statusCode < 400 ? `redirect (${statusCode}) not followed` : `HTTP ${statusCode}` }),
        ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      });
      // The body is not needed: drop it without waiting for it.
      response.destroy();
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      settle({ statusCode: 0, success: false, error: error instanceof RefusedAddress ? error.message : describeNetworkError(error) });
    });
    request.end(body);
  });
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return error.code ? `network error (${error.code})` : 'network error';
  }
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
