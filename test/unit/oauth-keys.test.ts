import { afterEach, describe, expect, it } from 'vitest';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { signingKey } from '../../lib/oauth/keys.js';

/* The OAuth signing key is derived from its seed: the same seed, the same key; the published JWK verifies what the private key signs. */
describe('OAuth signing key', () => {
  const before = process.env.OAUTH_SIGNING_KEY_SEED;
  afterEach(() => {
    process.env.OAUTH_SIGNING_KEY_SEED = before;
  });

  it('derives the same Ed25519 key from the same seed, another from another', () => {
    process.env.OAUTH_SIGNING_KEY_SEED = 'a'.repeat(40);
    const first = signingKey().publicJwk;
    process.env.OAUTH_SIGNING_KEY_SEED = 'b'.repeat(40);
    const other = signingKey().publicJwk;
    process.env.OAUTH_SIGNING_KEY_SEED = 'a'.repeat(40);
    expect(signingKey().publicJwk).toEqual(first);
    expect(other.x).not.toBe(first.x);
    expect(other.kid).not.toBe(first.kid);
  });

  it('signs tokens the published public key verifies', async () => {
    process.env.OAUTH_SIGNING_KEY_SEED = 'c'.repeat(40);
    const key = signingKey();
    const jwt = await new SignJWT({ scope: 'read' }).setProtectedHeader({ alg: 'EdDSA', kid: key.kid }).setExpirationTime('1m').sign(key.privateKey);
    const { payload, protectedHeader } = await jwtVerify(jwt, await importJWK(key.publicJwk, 'EdDSA'));
    expect(payload.scope).toBe('read');
    expect(protectedHeader.kid).toBe(key.kid);
  });

  it('refuses a missing or short seed', () => {
    process.env.OAUTH_SIGNING_KEY_SEED = 'short';
    expect(() => signingKey()).toThrow(/OAUTH_SIGNING_KEY_SEED/);
  });
});
