import { createHmac } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { config } from '../core/config.js';
import { addSeconds, epochSeconds } from '../core/clock.js';
import { newId, randomSecret, safeEqual, sha256Hex } from '../core/ids.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { OAUTH_SCOPES, resourceOf, type OAuthScope } from './discovery.js';
import { redirectUrisOf, resolveClient, type OAuthClient } from './clients.js';
import { redirectUriMatches } from './redirects.js';
import { isS256Challenge } from './pkce.js';

/** Authorization codes live 60 seconds (docs/design/oauth.md) and are used once. */
export const CODE_TTL_SECONDS = 60;
/** How long a sign-in and consent page stays usable. */
const REQUEST_TTL_SECONDS = 10 * 60;
/** The shortest `state` accepted (OAuth clients send at least 8 characters; docs/design/oauth.md). */
export const MIN_STATE_LENGTH = 8;
export const DEFAULT_SCOPE = 'read write';

/** A validated authorization request: what the consent page shows and the code is bound to. */
export interface AuthorizationRequest {
  orgId: string;
  clientId: string;
  redirectUri: string;
  scopes: OAuthScope[];
  state: string | null;
  codeChallenge: string;
  resource: string;
}

export type AuthorizeQuery = Record<string, string | undefined>;

/**
 * The outcome of checking an authorization request (RFC 6749 §4.1.2.1, RFC 9700 §4.1): an
 * error about the client or the redirect URI is shown to the user and never redirects (the
 * URI is not trusted); every other error goes back to the client with `error`, `state` and
 * `iss`; a valid request goes on to sign-in and consent.
 */
export type AuthorizationCheck =
  | { outcome: 'show-error'; message: string }
  | { outcome: 'redirect'; location: string }
  | { outcome: 'valid'; request: AuthorizationRequest; client: OAuthClient };

export async function checkAuthorizationRequest(orgId: string, query: AuthorizeQuery, origin: string, now: Date): Promise<AuthorizationCheck> {
  const clientId = query.client_id;
  if (!clientId) return { outcome: 'show-error', message: 'The request names no client (client_id is missing).' };
  const client = await resolveClient(clientId, orgId, now);
  if ('refused' in client) return { outcome: 'show-error', message: client.refused };
  const redirectUri = query.redirect_uri;
  if (!redirectUri) return { outcome: 'show-error', message: 'The request names no redirect URI (redirect_uri is missing).' };
  if (!redirectUrisOf(client, origin).some((registered) => redirectUriMatches(registered, redirectUri))) {
    return { outcome: 'show-error', message: 'The redirect URI is not one this client registered.' };
  }

  const state = query.state ?? null;
  const back = (error: string, description: string) => ({ outcome: 'redirect' as const, location: authorizationResponse(redirectUri, origin, { error, error_description: description }, state) });
  if (query.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code');
  if (state !== null && state.length < MIN_STATE_LENGTH) return back('invalid_request', `state must be at least ${MIN_STATE_LENGTH} characters`);
  if (query.code_challenge_method !== undefined && query.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256 (plain is not supported)');
  if (!query.code_challenge) return back('invalid_request', 'PKCE is required: send code_challenge (S256)');
  if (!isS256Challenge(query.code_challenge)) return back('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)');
  const requested = (query.scope ?? DEFAULT_SCOPE).split(' ').filter(Boolean);
  if (requested.length === 0 || requested.some((scope) => !(OAUTH_SCOPES as readonly string[]).includes(scope))) {
    return back('invalid_scope', `scope must be some of: ${OAUTH_SCOPES.join(' ')}`);
  }
  const resource = resourceOf(origin);
  if (query.resource !== undefined && !sameResource(query.resource, resource)) return back('invalid_target', `resource must be ${resource}`);
  const scopes = OAUTH_SCOPES.filter((scope) => requested.includes(scope));
  return { outcome: 'valid', client, request: { orgId, clientId: client.clientId, redirectUri, scopes, state, codeChallenge: query.code_challenge, resource } };
}

/** The advertised resource, with one trailing slash tolerated. */
export const sameResource = (given: string, resource: string): boolean => given === resource || given === `${resource}/`;

/** The redirect back to the client: its URI with the response parameters, `state` and `iss` (RFC 9207) added. */
export function authorizationResponse(redirectUri: string, issuer: string, params: Record<string, string>, state: string | null): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== null) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

/** The query string that asks for `request` again (the sign-in form sends the browser back to it); `org` on a shared origin. */
export function authorizeQueryOf(request: AuthorizationRequest, org?: string): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scopes.join(' '),
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    resource: request.resource,
  });
  if (request.state !== null) params.set('state', request.state);
  if (org !== undefined) params.set('org', org);
  return params.toString();
}

/** A key of its own for the pages' signed values, derived from JWT_SECRET (so a session JWT can never pass for one). */
const secretBytes = (): Uint8Array => createHmac('sha256', config().jwtSecret).update('oauth-authorization-pages').digest();

/**
 * The validated request, carried through the sign-in and consent forms as a signed, 10-minute
 * token (HS256 under a key derived from JWT_SECRET), so the pages keep no server-side state
 * and a form cannot change what was validated.
 */
export async function sealAuthorizationRequest(request: AuthorizationRequest, now: Date): Promise<string> {
  const iat = epochSeconds(now);
  return new SignJWT({ typ: 'oauth-request', req: request })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(iat)
    .setExpirationTime(iat + REQUEST_TTL_SECONDS)
    .sign(secretBytes());
}

/** The request a page carried, if its seal holds, it has not expired and it is for `orgId` (any organization when undefined). */
export async function openAuthorizationRequest(sealed: string | undefined, orgId: string | undefined, now: Date): Promise<AuthorizationRequest | undefined> {
  if (!sealed) return undefined;
  try {
    const { payload } = await jwtVerify(sealed, secretBytes(), { algorithms: ['HS256'], currentDate: now });
    const request = payload.req as AuthorizationRequest | undefined;
    if (payload.typ !== 'oauth-request' || !request || (orgId !== undefined && request.orgId !== orgId)) return undefined;
    return request;
  } catch {
    return undefined;
  }
}

/** The consent form's CSRF token: an HMAC binding the signed-in session to this very request. */
export function csrfTokenOf(sessionKey: string, sealedRequest: string): string {
  return createHmac('sha256', secretBytes()).update(`csrf|${sessionKey}|${sha256Hex(sealedRequest)}`).digest('base64url');
}

export const csrfTokenMatches = (given: string | undefined, sessionKey: string, sealedRequest: string): boolean =>
  typeof given === 'string' && safeEqual(given, csrfTokenOf(sessionKey, sealedRequest));

/**
 * "Allow": a single-use code for 60 seconds, bound to the client, the redirect URI, the PKCE
 * challenge, the scopes and the resource. The grant it will make has its id already, so a
 * replayed code can revoke what the first exchange issued.
 */
export async function issueAuthorizationCode(ctx: DomainContext, request: AuthorizationRequest, client: OAuthClient, origin: string): Promise<string> {
  const now = ctx.clock.now();
  const code = `wmc_${randomSecret(32)}`;
  const expiresAt = addSeconds(now, CODE_TTL_SECONDS);
  await db()
    .entities.oauthToken.create({
      lookupKey: sha256Hex(code),
      kind: 'CODE',
      grantId: newId('grt'),
      orgId: ctx.org.orgId,
      userId: ctx.actor.userId,
      clientId: client.clientId,
      clientName: client.clientName,
      personKey: sha256Hex(ctx.actor.email.toLowerCase()),
      // The console's grant ends with the sign-in that made it (`revokeConsoleGrantsOfSession`).
      ...(client.kind === 'CONSOLE' && ctx.actor.credential.kind === 'SESSION' ? { sessionKey: ctx.actor.credential.lookupKey } : {}),
      scope: request.scopes.join(' '),
      resource: request.resource,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      expiresAt: expiresAt.toISOString(),
      ttl: epochSeconds(expiresAt) + 3600,
      createdAt: now.toISOString(),
    })
    .go({ response: 'none' });
  return authorizationResponse(request.redirectUri, origin, { code }, request.state);
}
