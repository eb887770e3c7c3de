import { randomSecret, sha256Hex } from '../core/ids.js';

/**
 * Personal (`wmp_`) and agent (`wma_`) access tokens:
 *   <prefix><43 chars of secret><organization ULID><user ULID>
 * Only the SHA-256 of the whole token is stored. The two ULIDs are not secret: they let the
 * authenticator fetch the credential, the user and the organization in ONE BatchGetItem;
 * the stored credential must then name the same user and organization, or the token is refused.
 */
export const TOKEN_PREFIXES = { PERSONAL: 'wmp_', AGENT: 'wma_' } as const;
const SECRET_LENGTH = 43;
const ULID_LENGTH = 26;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export interface MintedToken {
  token: string;
  lookupKey: string;
  tokenPrefix: string;
}

export function mintAccessToken(kind: keyof typeof TOKEN_PREFIXES, orgId: string, userId: string): MintedToken {
  const token = `${TOKEN_PREFIXES[kind]}${randomSecret(32)}${ulidOf(orgId)}${ulidOf(userId)}`;
  return { token, lookupKey: sha256Hex(token), tokenPrefix: token.slice(0, 12) };
}

export interface ParsedAccessToken {
  kind: keyof typeof TOKEN_PREFIXES;
  lookupKey: string;
  orgId: string;
  userId: string;
}

export function parseAccessToken(token: string): ParsedAccessToken | undefined {
  const kind = token.startsWith(TOKEN_PREFIXES.PERSONAL) ? 'PERSONAL' : token.startsWith(TOKEN_PREFIXES.AGENT) ? 'AGENT' : undefined;
  if (!kind) return undefined;
  const body = token.slice(4);
  if (body.length !== SECRET_LENGTH + 2 * ULID_LENGTH) return undefined;
  const orgUlid = body.slice(SECRET_LENGTH, SECRET_LENGTH + ULID_LENGTH);
  const userUlid = body.slice(SECRET_LENGTH + ULID_LENGTH);
  if (!ULID.test(orgUlid) || !ULID.test(userUlid)) return undefined;
  return { kind, lookupKey: sha256Hex(token), orgId: `org_${orgUlid}`, userId: `usr_${userUlid}` };
}

const ulidOf = (id: string): string => id.slice(id.indexOf('_') + 1);
