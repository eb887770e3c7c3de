import { oauthError } from '../core/errors.js';
import { config } from '../core/config.js';
import { addSeconds, epochSeconds, type Clock } from '../core/clock.js';
import { newId, randomSecret, safeEqual, sha256Hex } from '../core/ids.js';
import { outboundRequest } from '../core/outbound.js';
import type { DomainContext } from '../db/context.js';
import type { OAuthClientItem } from '../db/entities/index.js';
import { db } from '../db/service.js';
import { countCall, reportWindows } from '../db/rate-limit.js';
import { transact, type TransactionEntities } from '../db/transact.js';
import { CONSOLE_CLIENT_ID } from '../identity/index.js';
import { requireSession } from '../identity/index.js';
import { redirectUriRefusal } from './redirects.js';
import { oauthRateWindow } from './rate-limits.js';
import type { RegisteredClient } from './shapes.js';

/** Prefix of registered clients' secrets. */
const CLIENT_SECRET_PREFIX = 'wmcs_';

export interface RegistrationInput {
  client_name: string;
  redirect_uris: string[];
  client_uri?: string | undefined;
  logo_uri?: string | undefined;
  token_endpoint_auth_method?: string | undefined;
  grant_types?: string[] | undefined;
  response_types?: string[] | undefined;
}

/** An anonymous public client not used within this many seconds of its registration is gone. */
export const UNUSED_PUBLIC_CLIENT_SECONDS = 24 * 3600;

/** The metadata both kinds of registration check alike (RFC 7591 §2): redirect URIs, URLs, grant and response types. */
function checkRegistrationMetadata(input: RegistrationInput, publicClient: boolean): void {
  for (const [index, uri] of input.redirect_uris.entries()) {
    const refusal = redirectUriRefusal(uri, { publicClient });
    if (refusal) throw oauthError('invalid_redirect_uri', `redirect_uris[${index}] ${refusal}`);
  }
  for (const field of ['client_uri', 'logo_uri'] as const) {
    const value = input[field];
    if (value !== undefined && !isHttpsUrl(value)) throw oauthError('invalid_client_metadata', `${field} must be an https:// URL`);
  }
  if (input.grant_types?.some((type) => type !== 'authorization_code' && type !== 'refresh_token')) {
    throw oauthError('invalid_client_metadata', 'grant_types may name authorization_code and refresh_token only');
  }
  if (input.response_types?.some((type) => type !== 'code')) throw oauthError('invalid_client_metadata', 'response_types may name code only');
}

/** The registration response (RFC 7591 §3.2.1) of either kind. */
function registrationResponse(clientId: string, input: RegistrationInput, now: Date, secret: string | undefined): RegisteredClient {
  return {
    client_id: clientId,
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: epochSeconds(now),
    client_name: input.client_name,
    redirect_uris: input.redirect_uris,
    ...(input.client_uri ? { client_uri: input.client_uri } : {}),
    ...(input.logo_uri ? { logo_uri: input.logo_uri } : {}),
    token_endpoint_auth_method: secret ? ('client_secret_post' as const) : ('none' as const),
    grant_types: ['authorization_code', 'refresh_token'] as ('authorization_code' | 'refresh_token')[],
    response_types: ['code'] as 'code'[],
  };
}

/**
 * Stores a registered client in one transaction with the registration count of its source
 * address (five per hour, both kinds together), so a refused registration counts nothing.
 */
async function storeRegistration(input: RegistrationInput, sourceIp: string, now: Date, kindFields: Pick<OAuthClientItem, 'kind' | 'orgId'> & Partial<OAuthClientItem>) {
  const clientId = newId('cli');
  const window = oauthRateWindow('register', sourceIp, now);
  await transact((e) => [
    countCall(e, window, now, 'At most 5 client registrations per hour from one address'),
    e.oauthClient
      .create({
        clientId,
        clientName: input.client_name,
        redirectUris: input.redirect_uris,
        ...(input.client_uri ? { clientUri: input.client_uri } : {}),
        ...(input.logo_uri ? { logoUri: input.logo_uri } : {}),
        createdAt: now.toISOString(),
        ...kindFields,
      })
      .commit(),
  ]);
  await reportWindows([window], now);
  return clientId;
}

/**
 * Dynamic client registration (RFC 7591, docs/oauth.md): a signed-in user registers a
 * confidential client. Its secret is returned once and kept only as SHA-256.
 */
export async function registerClient(ctx: DomainContext, input: RegistrationInput, sourceIp: string) {
  requireSession(ctx);
  checkRegistrationMetadata(input, false);
  if (input.token_endpoint_auth_method !== undefined && input.token_endpoint_auth_method !== 'client_secret_post') {
    throw oauthError('invalid_client_metadata', 'Registered clients authenticate with client_secret_post');
  }
  const now = ctx.clock.now();
  const clientSecret = `${CLIENT_SECRET_PREFIX}${randomSecret(32)}`;
  const clientId = await storeRegistration(input, sourceIp, now, { kind: 'REGISTERED', secretSha256: sha256Hex(clientSecret), orgId: ctx.org.orgId, createdBy: ctx.actor.userId });
  return registrationResponse(clientId, input, now, clientSecret);
}

/**
 * Open registration of a public client (RFC 7591 §3 with no initial access token), as MCP
 * clients that have no metadata document do it (Cursor, GitHub Copilot CLI): no secret is
 * issued (`token_endpoint_auth_method` `none`, the default here when omitted), the client
 * proves itself with PKCE S256 on every authorization, and may redirect to its own URI scheme
 * (RFC 8252 §7.1). It is usable only at the organization it registered with, and a client
 * whose first code is not redeemed within 24 hours is gone.
 */
export async function registerPublicClient(clock: Clock, orgId: string, input: RegistrationInput, sourceIp: string) {
  checkRegistrationMetadata(input, true);
  if (input.token_endpoint_auth_method !== undefined && input.token_endpoint_auth_method !== 'none') {
    throw oauthError(
      'invalid_client_metadata',
      'An anonymous registration makes a public client: token_endpoint_auth_method must be none (a confidential client is registered with a signed-in session)',
    );
  }
  const now = clock.now();
  const expiresAt = addSeconds(now, UNUSED_PUBLIC_CLIENT_SECONDS);
  const clientId = await storeRegistration(input, sourceIp, now, { kind: 'PUBLIC', orgId, expiresAt: expiresAt.toISOString(), ttl: epochSeconds(expiresAt) + 86_400 });
  return registrationResponse(clientId, input, now, undefined);
}

/**
 * The transaction item that marks an anonymous public client used (its first code redeemed):
 * it no longer expires. Nothing for any other client, or one already used.
 */
export function markClientUsed(e: TransactionEntities, client: OAuthClient, now: Date) {
  if (client.kind !== 'PUBLIC' || client.used) return [];
  return [e.oauthClient.patch({ clientId: client.clientId }).set({ usedAt: now.toISOString() }).remove(['expiresAt', 'ttl']).commit()];
}

/** A client the authorization server knows: registered, described by its metadata document, or the console. */
export interface OAuthClient {
  clientId: string;
  kind: OAuthClientItem['kind'] | 'CONSOLE';
  clientName: string;
  redirectUris: string[];
  /** The metadata document's host, shown on the consent page beside the name it claims. */
  host: string | null;
  secretSha256: string | null;
  /** PUBLIC: its first code was redeemed (it no longer expires). */
  used: boolean;
}

const clientOf = (item: OAuthClientItem): OAuthClient => ({
  clientId: item.clientId,
  kind: item.kind,
  clientName: item.clientName,
  redirectUris: item.redirectUris,
  host: item.kind === 'METADATA' ? new URL(item.clientId).host : null,
  secretSha256: item.secretSha256 ?? null,
  used: item.usedAt !== undefined,
});

/**
 * The console (`CONSOLE_CLIENT_ID`, docs/console.md): a first-party public client built in, not stored.
 * It proves itself with PKCE like any public client, may redirect only to the console on the
 * organization's own origin (`consoleRedirectUri`), and is not asked for consent: it is this
 * service's own page, on the same origin as the sign-in page.
 */
export const consoleRedirectUri = (origin: string): string => `${origin}/app`;
const CONSOLE_CLIENT: OAuthClient = { clientId: CONSOLE_CLIENT_ID, kind: 'CONSOLE', clientName: 'the console', redirectUris: [], host: null, secretSha256: null, used: true };

/** The redirect URIs a client may use at `origin`: the console's is the console on that origin. */
export const redirectUrisOf = (client: OAuthClient, origin: string): string[] => (client.kind === 'CONSOLE' ? [consoleRedirectUri(origin)] : client.redirectUris);

/** Whether a `client_id` is a Client ID Metadata Document URL (an HTTPS URL with a path). */
export const isMetadataDocumentClientId = (clientId: string): boolean => clientId.startsWith('https://');

/**
 * The client named by `client_id` at the organization `orgId`'s server, or why it cannot be
 * used. A registered client is known everywhere (the organization switch needs that); an
 * anonymous public client only where it registered, and not after it expired unused. A
 * metadata document client is read from its cached document while that is fresh, else fetched
 * again. `cached` is what the caller already read (the token endpoint reads it beside the code).
 */
export async function resolveClient(clientId: string, orgId: string, now: Date, cached?: OAuthClientItem | null): Promise<OAuthClient | { refused: string }> {
  if (clientId === CONSOLE_CLIENT_ID) return CONSOLE_CLIENT;
  const item = cached !== undefined ? cached : (await db().entities.oauthClient.get({ clientId }).go()).data;
  if (!isMetadataDocumentClientId(clientId)) {
    if (item?.kind === 'REGISTERED') return clientOf(item);
    const live = item?.kind === 'PUBLIC' && item.orgId === orgId && (item.usedAt !== undefined || (item.expiresAt ?? '') > now.toISOString());
    return live ? clientOf(item) : { refused: 'Unknown client' };
  }
  if (item && item.kind === 'METADATA' && item.cachedUntil && item.cachedUntil > now.toISOString()) return clientOf(item);
  const fetched = await fetchClientMetadata(clientId, now);
  if ('refused' in fetched) return fetched;
  await db().entities.oauthClient.put(fetched).go({ response: 'none' });
  return clientOf(fetched);
}

/** Checks a confidential client's secret (constant time); a public client has none to check. */
export function authenticateClient(client: OAuthClient, secret: string | undefined): void {
  if (client.kind !== 'REGISTERED') return;
  if (!secret || !client.secretSha256 || !safeEqual(sha256Hex(secret), client.secretSha256)) {
    throw oauthError('invalid_client', 'Client authentication failed');
  }
}

/** Metadata documents are read with these limits (MCP 2025-11-25, Client ID Metadata Documents). */
export const METADATA_DOCUMENT_LIMITS = { timeoutMs: 5000, maxBytes: 5 * 1024, minCacheSeconds: 300, maxCacheSeconds: 86_400 } as const;

/**
 * Fetches and validates a Client ID Metadata Document: GET over HTTPS through the SSRF guard
 * (lib/core/outbound.ts: public addresses only, checked on the connected socket), 5 s, 5 KB,
 * redirects refused. The document must be a JSON object whose `client_id` is exactly its URL,
 * whose `redirect_uris` follow the registration rules, and which asks for no secret-based
 * authentication. It is cached per its `Cache-Control: max-age`, between 5 minutes and 24 hours.
 */
export async function fetchClientMetadata(url: string, now: Date): Promise<OAuthClientItem | { refused: string }> {
  const shape = metadataUrlRefusal(url);
  if (shape) return { refused: `The client_id URL ${shape}` };
  const response = await outboundRequest(url, {
    method: 'GET',
    headers: { accept: 'application/json', 'user-agent': 'work-management-oauth/1' },
    timeoutMs: METADATA_DOCUMENT_LIMITS.timeoutMs,
    maxBodyBytes: METADATA_DOCUMENT_LIMITS.maxBytes,
    allowLoopback: config().webhookAllowLoopback,
  });
  if (response.error) return { refused: `The client's metadata document could not be read: ${response.error}` };
  if (response.statusCode >= 300 && response.statusCode < 400) return { refused: `The client's metadata document redirects (${response.statusCode}); redirects are not followed` };
  if (response.statusCode !== 200) return { refused: `The client's metadata document answered HTTP ${response.statusCode}` };
  let document: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(response.body!.toString('utf8'));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    document = parsed as Record<string, unknown>;
  } catch {
    return { refused: "The client's metadata document is not a JSON object" };
  }
  if (document.client_id !== url) return { refused: "The metadata document's client_id is not its own URL" };
  const redirectUris = document.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0 || !redirectUris.every((uri) => typeof uri === 'string')) {
    return { refused: 'The metadata document has no redirect_uris' };
  }
  for (const uri of redirectUris as string[]) {
    const refusal = redirectUriRefusal(uri, { publicClient: true });
    if (refusal) return { refused: `The metadata document's redirect URI ${uri} ${refusal}` };
  }
  const method = document.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') return { refused: 'A metadata document client is public: token_endpoint_auth_method must be none' };
  if (document.client_secret !== undefined) return { refused: 'A metadata document must not carry a client_secret' };
  const host = new URL(url).host;
  const name = typeof document.client_name === 'string' && document.client_name.trim() ? document.client_name.trim().slice(0, 200) : host;
  const cacheSeconds = cacheLifetime(response.headers['cache-control']);
  const cachedUntil = addSeconds(now, cacheSeconds);
  return {
    clientId: url,
    kind: 'METADATA',
    clientName: name,
    redirectUris: redirectUris as string[],
    ...(typeof document.client_uri === 'string' && isHttpsUrl(document.client_uri) ? { clientUri: document.client_uri } : {}),
    cachedUntil: cachedUntil.toISOString(),
    ttl: epochSeconds(cachedUntil) + 86_400,
    createdAt: now.toISOString(),
  };
}

/** Why a URL cannot be a client_id metadata URL: HTTPS, a path, no fragment, credentials or dot segments. */
function metadataUrlRefusal(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be https';
  if (raw.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.pathname === '/' || url.pathname === '') return 'must have a path';
  if (/\/\.\.?(\/|$)/.test(raw.slice(url.origin.length))) return 'must not contain dot segments';
  return undefined;
}

function cacheLifetime(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(value);
  const seconds = maxAge ? Number(maxAge[1]) : 0;
  return Math.min(METADATA_DOCUMENT_LIMITS.maxCacheSeconds, Math.max(METADATA_DOCUMENT_LIMITS.minCacheSeconds, seconds));
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}
