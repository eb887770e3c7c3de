import { countInWindow, rateWindow, type RateWindowRef } from '../db/rate-limit.js';

/**
 * Per-IP limits of the OAuth endpoints under /api/v1/oauth (registration 5 per hour, or
 * OAUTH_REGISTRATIONS_PER_HOUR: `npm start` sets 100, for trying one client after another;
 * the others are ours, documented in the README). The discovery documents and the key set are
 * public, cacheable documents that cost one read or none, and are not counted. Each answers 429 with `Retry-After`, `RateLimit-Policy` and
 * `RateLimit`. Windows are keyed by the source address alone, one partition per address.
 */
export const OAUTH_RATE_LIMITS = {
  /** Dynamic client registration: counted in the registration's own transaction, so only registrations count. */
  register: { limit: 5, windowSeconds: 3600 },
  /** The authorization endpoint and the sign-in and consent forms together. */
  authorize: { limit: 60, windowSeconds: 60 },
  token: { limit: 60, windowSeconds: 60 },
  revoke: { limit: 60, windowSeconds: 60 },
  /** The authorized-clients list, its revocation and `me/organizations`. */
  account: { limit: 120, windowSeconds: 60 },
} as const;

export type OAuthEndpoint = keyof typeof OAUTH_RATE_LIMITS;

export function oauthRateWindow(endpoint: OAuthEndpoint, sourceIp: string, now: Date): RateWindowRef {
  const { windowSeconds } = OAUTH_RATE_LIMITS[endpoint];
  const limit = endpoint === 'register' ? Number(process.env.OAUTH_REGISTRATIONS_PER_HOUR) || OAUTH_RATE_LIMITS.register.limit : OAUTH_RATE_LIMITS[endpoint].limit;
  return rateWindow('ip', `oauth-${endpoint}#${sourceIp}`, limit, windowSeconds, now);
}

/** Counts one call of `endpoint` from `sourceIp`, or refuses it with 429 (and counts nothing). */
export async function limitOAuthCalls(endpoint: OAuthEndpoint, sourceIp: string, now: Date): Promise<void> {
  await countInWindow(oauthRateWindow(endpoint, sourceIp, now), now, `Too many ${endpoint} requests from this address; retry later`);
}
