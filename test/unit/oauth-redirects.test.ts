import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redirectUriMatches, redirectUriRefusal } from '../../lib/oauth/redirects.js';
import { isS256Challenge, verifiesS256 } from '../../lib/oauth/pkce.js';

/* Redirect URI rules (RFC 8252, RFC 9700) and PKCE S256 (RFC 7636), as pure functions. */
describe('redirect URIs', () => {
  it.each(['https://app.example.com/callback', 'https://app.example.com/cb?tenant=1', 'http://127.0.0.1/callback', 'http://127.0.0.1:8765/callback', 'http://[::1]:9000/cb', 'http://localhost:3334/oauth/callback'])(
    'admits %s',
    (uri) => expect(redirectUriRefusal(uri)).toBeUndefined(),
  );

  it.each([
    ['javascript:alert(1)', 'https'],
    ['data:text/html,<script>alert(1)</script>', 'https'],
    ['https://app.example.com/cb#frag', 'fragment'],
    ['https://*.example.com/cb', 'wildcard'],
    ['http://app.example.com/cb', 'loopback'],
    ['http://10.0.0.5/cb', 'loopback'],
    ['https://user:pw@app.example.com/cb', 'credentials'],
    ['cursor://callback', 'https'],
    ['/relative/callback', 'absolute'],
  ])('refuses %s (%s)', (uri, reason) => expect(redirectUriRefusal(uri)).toContain(reason));

  it('matches an HTTPS URI exactly: no trailing slash, case, query, port or scheme variant', () => {
    const registered = 'https://app.example.com/callback';
    expect(redirectUriMatches(registered, registered)).toBe(true);
    for (const variant of [
      'https://app.example.com/callback/',
      'https://APP.example.com/callback',
      'https://app.example.com/Callback',
      'https://app.example.com/callback?x=1',
      'https://app.example.com:8443/callback',
      'http://app.example.com/callback',
      'https://app.example.com/callback#x',
    ]) {
      expect(redirectUriMatches(registered, variant), variant).toBe(false);
    }
  });

  it('matches a loopback URI on any port, and only on its host, path and query', () => {
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:8000/callback', 'http://127.0.0.1:9000/callback')).toBe(true);
    expect(redirectUriMatches('http://[::1]:1/cb', 'http://[::1]:2/cb')).toBe(true);
    expect(redirectUriMatches('http://localhost:3000/cb', 'http://localhost:4000/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:80/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://localhost:5000/callback')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1:5000/other')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1:5000/callback?x=1')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'https://127.0.0.1:5000/callback')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1:5000/callback#f')).toBe(false);
  });
});

describe('PKCE S256', () => {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');

  it('accepts the verifier its challenge was made from', () => {
    expect(isS256Challenge(challenge)).toBe(true);
    expect(verifiesS256(verifier, challenge)).toBe(true);
  });

  it('refuses a wrong verifier, a plain challenge (the verifier itself), and malformed values', () => {
    expect(verifiesS256(randomBytes(32).toString('base64url'), challenge)).toBe(false);
    expect(verifiesS256(verifier, verifier)).toBe(false);
    expect(isS256Challenge('short')).toBe(false);
    expect(verifiesS256('too-short', challenge)).toBe(false);
    expect(verifiesS256(`${verifier}!`, challenge)).toBe(false);
  });
});
