import { createHmac } from 'node:crypto';
import { config } from '../core/config.js';
import { safeEqual } from '../core/ids.js';

/**
 * The MCP client's name (what a claim shows as `claimedBy.name`), from the request itself: a
 * 2026-07-28 request carries it in `_meta["io.modelcontextprotocol/clientInfo"]`; a 2025-11-25
 * client sends it once, in `initialize`. For those, the answer to `initialize` carries an
 * `Mcp-Session-Id` that is the name with an HMAC, which the client sends with every later
 * request: verifiable without a lookup, so any instance serves any request.
 */
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const MAX_NAME = 100;

const key = (): Buffer => createHmac('sha256', config().jwtSecret).update('mcp-legacy-session').digest();
const mac = (encoded: string): string => createHmac('sha256', key()).update(encoded).digest('base64url');

export function legacySessionId(clientName: string): string {
  const encoded = Buffer.from(clientName.slice(0, MAX_NAME)).toString('base64url');
  return `${encoded}.${mac(encoded)}`;
}

export function clientNameOfSession(sessionId: string | undefined): string | undefined {
  if (!sessionId) return undefined;
  const [encoded, signature] = sessionId.split('.');
  if (!encoded || !signature || !safeEqual(signature, mac(encoded))) return undefined;
  return Buffer.from(encoded, 'base64url').toString('utf8');
}

interface JsonRpcMessage {
  method?: unknown;
  params?: { clientInfo?: { name?: unknown }; _meta?: Record<string, { name?: unknown } | undefined> };
}

/** What a request body says of the client: its name, and whether it is a 2025 `initialize`. */
export function clientOfMessage(body: unknown): { name?: string; initialize: boolean } {
  const message = body as JsonRpcMessage | undefined;
  if (!message || typeof message !== 'object') return { initialize: false };
  const initialize = message.method === 'initialize';
  const name = initialize ? message.params?.clientInfo?.name : message.params?._meta?.[CLIENT_INFO_KEY]?.name;
  return typeof name === 'string' && name.trim() ? { name: name.trim().slice(0, MAX_NAME), initialize } : { initialize };
}
