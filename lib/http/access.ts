import { AppError, forbidden, unauthenticated } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import { safeEqual, sha256Hex } from '../core/ids.js';
import { config } from '../core/config.js';
import type { DomainContext } from '../db/context.js';
import { authenticate } from '../identity/index.js';
import { type OAuthScope, resourceMetadataUrl } from '../oauth/index.js';
import { originOf, type RequestInfo, type Route } from './routes.js';
import { addressedSlugOf } from './organization-slug.js';

/*
 * Who may call a route: the bearer credential authenticated (with the RFC 6750 / RFC 9728
 * challenge on refusal), the token's restrictions and OAuth scopes, the platform operator.
 */

export function bearerOf(headers: Record<string, string | undefined>): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  if (!match?.[1]) throw unauthenticated();
  return match[1];
}

/**
 * Authenticates the request's bearer credential. A refusal (401) carries the RFC 6750 / RFC
 * 9728 challenge: for a request that names its organization (its own origin, or
 * `X-Organization` on a shared one) it points at the protected resource metadata, so an OAuth
 * client discovers the authorization server by itself, and it says `error="invalid_token"`
 * when a token was sent.
 */
export async function authenticateRequest(request: RequestInfo, clock: Clock): Promise<DomainContext> {
  const sent = /^Bearer\s+\S+\s*$/i.test(request.headers.authorization ?? '');
  try {
    return await authenticate(bearerOf(request.headers), { slug: request.orgSlug, origin: originOf(request) }, clock, request.requestId);
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 401) throw error;
    const challenge = [
      ...(addressedSlugOf(request.headers) ? [`resource_metadata="${resourceMetadataUrl(originOf(request))}"`] : []),
      ...(sent ? ['error="invalid_token"'] : []),
    ];
    throw new AppError(error.code, error.message, error.details, { ...error.headers, 'WWW-Authenticate': challenge.length ? `Bearer ${challenge.join(', ')}` : 'Bearer' });
  }
}

/** An OAuth access token reaches only what its route's declared scope allows (RouteScope); 403 names every scope needed. */
export function enforceOAuthScopes(ctx: DomainContext, needed: readonly OAuthScope[]): void {
  const granted = ctx.actor.credential.scopes;
  if (!granted) return;
  const missing = needed.filter((scope) => !granted.includes(scope));
  if (missing.length === 0) return;
  throw new AppError('INSUFFICIENT_SCOPE', `This token lacks the scope ${missing.join(' and ')}`, { required: needed, granted }, {
    'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${needed.join(' ')}"`,
  });
}

/** Token restrictions that hold for every route (docs/agents.md); board restrictions live in board access. */
export function enforceTokenRestrictions(ctx: DomainContext, method: string, route: Route): void {
  const credential = ctx.actor.credential;
  if (credential.readOnly && method !== 'GET' && method !== 'HEAD') {
    throw forbidden('This token is read-only', 'PAT_READ_ONLY');
  }
  if (credential.denyDelete && method === 'DELETE' && !('denyDeleteCheckedByDomain' in route && route.denyDeleteCheckedByDomain)) {
    throw forbidden('This token may not delete', 'PAT_DENY_DELETE');
  }
}

export function requirePlatformOperator(headers: Record<string, string | undefined>): void {
  if (!isPlatformOperator(headers)) throw unauthenticated('Invalid platform operator token');
}

/** True when the bearer token is the platform operator's (its SHA-256 is configured and matches). */
export function isPlatformOperator(headers: Record<string, string | undefined>): boolean {
  const expected = config().platformAdminTokenSha256;
  if (!expected || headers.authorization === undefined) return false;
  return safeEqual(sha256Hex(bearerOf(headers)), expected);
}
