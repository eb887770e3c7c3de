import { decodeJwt, decodeProtectedHeader } from 'jose';
import { sha256Hex } from '../core/ids.js';

/** The protected resource an OAuth access token is for (its `aud`): the organization's MCP endpoint, which also covers its REST API. */
export const resourceOf = (origin: string): string => `${origin}/api/v1/mcp`;

/** The JWT `typ` of OAuth access tokens (RFC 9068). */
export const ACCESS_TOKEN_TYP = 'at+jwt';

export interface OAuthAccessTokenReference {
  lookupKey: string;
  orgId: string;
  userId: string;
  grantId: string;
  audience: string;
}

/**
 * What an OAuth access token names, read from its claims without verifying the signature:
 * the authenticator then requires a stored record under the SHA-256 of the whole token, so
 * only a token this service issued, byte for byte, is accepted (a token signed by another key,
 * with `alg: none` or with any claim changed has no record). The signature is for other
 * parties, who verify it with `/.well-known/jwks.json`; this way no function but the
 * authorization server needs key material.
 */
export function parseOAuthAccessToken(token: string): OAuthAccessTokenReference | undefined {
  try {
    if (decodeProtectedHeader(token).typ !== ACCESS_TOKEN_TYP) return undefined;
    const claims = decodeJwt(token);
    const { sub, org, gid, aud } = claims as Record<string, unknown>;
    if (typeof sub !== 'string' || typeof org !== 'string' || typeof gid !== 'string' || typeof aud !== 'string') return undefined;
    return { lookupKey: sha256Hex(token), orgId: org, userId: sub, grantId: gid, audience: aud };
  } catch {
    return undefined;
  }
}
