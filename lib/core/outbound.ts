import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { isPublicAddress, outboundTarget, webhookUrlRefusal, type UrlRules } from './addresses.js';

/**
 * The one way the service calls out to an address a user gave it (webhook receivers, OAuth
 * client metadata documents): the SSRF guard runs where the connection is made. Every address
 * the host name resolves to must be public (DNS lookup hook), and the socket's actual remote
 * address is checked again when it connects, before a byte of the request is written, so an
 * answer that changes between a check and the connection cannot reach a private address.
 * Redirects are never followed.
 */
export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Reads the response body up to this many bytes (a larger one is a failure); unset: the body is dropped. */
  maxBodyBytes?: number;
  /**
   * Admits loopback addresses, and on them `http://` and unverified certificates
   * (WEBHOOK_ALLOW_LOOPBACK: local development and tests only).
   */
  allowLoopback?: boolean;
}

export interface OutboundResponse {
  /** The response's status, or 0 when there was none. */
  statusCode: number;
  headers: IncomingHttpHeaders;
  body?: Buffer;
  /** Why there is no (usable) response, in a few words (never the response body). */
  error?: string;
  durationMs: number;
}

const LOOPBACK = (address: string) => address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';

class RefusedAddress extends Error {
  readonly code = 'ENOTPUBLIC';
  constructor(address: string) {
    super(`refused to connect to the non-public address ${address}`);
  }
}

export function outboundRequest(url: string, options: OutboundRequest): Promise<OutboundResponse> {
  const started = performance.now();
  const permitted = (address: string) => isPublicAddress(address) || (options.allowLoopback === true && LOOPBACK(address));
  const finish = (result: Omit<OutboundResponse, 'durationMs'>): OutboundResponse => ({ ...result, durationMs: Math.round(performance.now() - started) });
  const failure = (error: string) => finish({ statusCode: 0, headers: {}, error });

  return new Promise((resolve) => {
    const parsed = outboundTarget(url);
    if (typeof parsed === 'string') {
      resolve(failure(`invalid URL: ${parsed}`));
      return;
    }
    const { url: target, host } = parsed;
    const secure = target.protocol === 'https:';
    if (!secure && !(options.allowLoopback && target.protocol === 'http:')) {
      resolve(failure('not an https:// URL'));
      return;
    }
    if (isIP(host) && !permitted(host)) {
      resolve(failure(new RefusedAddress(host).message));
      return;
    }

    // biome-ignore lint/suspicious/noExplicitAny: Node's lookup callback is overloaded; its arguments differ by `all`
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
    const settle = (result: OutboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };

    const loopbackTarget = options.allowLoopback === true && (LOOPBACK(host) || host === 'localhost');
    const request = (secure ? httpsRequest : httpRequest)(target, {
      method: options.method,
      headers: { ...options.headers, ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}) },
      lookup: guardedLookup as never,
      agent: false,
      ...(secure && loopbackTarget ? { rejectUnauthorized: false } : {}),
    });
    const timer = setTimeout(() => {
      settle(failure(`no response within ${options.timeoutMs / 1000} s`));
      request.destroy();
    }, options.timeoutMs);

    request.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        const address = socket.remoteAddress;
        if (!address || !permitted(address)) request.destroy(new RefusedAddress(address ?? 'unknown'));
      });
    });
    request.on('response', (response: IncomingMessage) => {
      const statusCode = response.statusCode ?? 0;
      if (options.maxBodyBytes === undefined) {
        settle(finish({ statusCode, headers: response.headers }));
        // The body is not needed: drop it without waiting for it.
        response.destroy();
        return;
      }
      const limit = options.maxBodyBytes;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          settle(finish({ statusCode, headers: response.headers, error: `response larger than ${limit} bytes` }));
          response.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => settle(finish({ statusCode, headers: response.headers, body: Buffer.concat(chunks) })));
      response.on('error', () => settle(failure('connection reset')));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      settle(failure(error instanceof RefusedAddress ? error.message : describeNetworkError(error)));
    });
    request.end(options.body);
  });
}

/** How long a registration waits for DNS before accepting a name it could not resolve. */
const REGISTRATION_LOOKUP_MS = 3000;

/**
 * Why a URL the service will call later (a webhook endpoint, the time-booking endpoint) is
 * refused when it is given: its shape (lib/core/addresses.ts),
 * and every address its host name resolves to now must be public, so a name that points at a
 * private, loopback or metadata address is refused at once rather than failing every delivery.
 * Delivery checks again on the address it connects to (DNS may change in between). A name that
 * does not resolve now is accepted: its DNS may not be set up yet, and delivery will say so.
 */
export async function deliverableUrlRefusal(raw: string, rules: UrlRules = {}): Promise<string | undefined> {
  const shape = webhookUrlRefusal(raw, rules);
  if (shape) return shape;
  const { host } = outboundTarget(raw) as { host: string };
  if (isIP(host)) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    dnsPromises.lookup(host, { all: true }).catch(() => [] as LookupAddress[]),
    new Promise<LookupAddress[]>((resolve) => (timer = setTimeout(() => resolve([]), REGISTRATION_LOOKUP_MS))),
  ]).finally(() => clearTimeout(timer));
  const refused = addresses.find((entry) => !isPublicAddress(entry.address) && !(rules.allowLoopback === true && LOOPBACK(entry.address)));
  return refused ? `Its host name ${host} resolves to ${refused.address}, which is not a public address (private, loopback, link-local or reserved)` : undefined;
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
