import { createHmac } from 'node:crypto';
import { seal, unseal } from '../core/sealed.js';
import { sha256Hex } from '../core/ids.js';

/**
 * The answer a refresh token's rotation gave, kept on the rotated token so that the same
 * request sent again within the race allowance gets the same answer (RFC 9700 §4.14.2 lets a
 * server tolerate a client racing itself; it must not mint a second pair). The pair is sealed
 * (AES-256-GCM) under a key derived from the rotated refresh token itself: the table holds only
 * that token's SHA-256, from which the key cannot be derived, so only a caller who presents the
 * token can open the pair, and nothing secret is readable from the table.
 */
export interface RotatedPair {
  access_token: string;
  refresh_token: string;
  scope: string;
  /** When the access token expires (epoch seconds): a replay answers the time left. */
  accessExpiresAt: number;
}

const keyOf = (refreshToken: string): Buffer => createHmac('sha256', refreshToken).update('wm-oauth-refresh-rotation').digest();

export const sealRotatedPair = (refreshToken: string, pair: RotatedPair): string => seal(JSON.stringify(pair), keyOf(refreshToken));

export function openRotatedPair(refreshToken: string, sealed: string): RotatedPair | undefined {
  try {
    return JSON.parse(unseal(sealed, keyOf(refreshToken))) as RotatedPair;
  } catch {
    return undefined;
  }
}

/** What makes two refresh requests "the same request": the client, the scope and the organization asked for. */
export const rotationRequestDigest = (parts: { clientId: string; scope: string | undefined; organizationId: string | undefined; resource: string | undefined }): string =>
  sha256Hex(JSON.stringify([parts.clientId, parts.scope ?? null, parts.organizationId ?? null, parts.resource ?? null]));
