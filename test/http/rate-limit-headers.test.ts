import { beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { api, type TestOrg, useInProcess } from '../support/api.js';
import { createOrg, createWikiSpace } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/**
 * Limits counted inside a larger transaction (sign-in failures, wiki spaces and pages, client
 * registration) also tell every response, success or refusal, where the caller stands.
 */
let org: TestOrg;
const address = () => `203.0.113.${randomBytes(1)[0]! % 250}`;
const state = (header: string | null) => Object.fromEntries((header ?? '').split(', ').map((policy) => [/^"([^"]+)"/.exec(policy)![1], Object.fromEntries(policy.split(';').slice(1).map((part) => part.split('=')).map(([key, value]) => [key, Number(value)]))]));

beforeAll(async () => {
  org = await createOrg({ plan: 'PRO' });
});

describe('RateLimit headers of transaction-counted limits', () => {
  it('on sign-in: a failure shows one failure used in each window, a success none', async () => {
    const headers = { 'x-forwarded-for': `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]}` };
    const email = `admin@${org.slug}.test`;
    const failed = await api('POST', '/api/v1/auth/login', { org: org.slug, headers, body: { email, password: 'not the password' } });
    expect(failed.status).toBe(401);
    expect(state(failed.headers.get('ratelimit-policy'))).toEqual({ 'login-address': { q: 100, w: 900 }, 'login-account': { q: 10, w: 900 } });
    // The tighter window: the account's, one failure spent.
    expect(failed.headers.get('ratelimit')).toMatch(/^"login-account";r=9;t=\d+$/);
    const signedIn = await api('POST', '/api/v1/auth/login', { org: org.slug, headers, body: { email, password: 'correct horse battery' } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('ratelimit')).toMatch(/^"login-account";r=9;t=\d+$/);
  });

  it('on wiki space and page creation', async () => {
    const space = await org.call('POST', '/api/v1/wiki/spaces', { body: { name: `Limited ${randomBytes(3).toString('hex')}` } });
    expect(space.status).toBe(201);
    expect(space.headers.get('ratelimit-policy')).toBe('"wiki-space";q=10;w=3600');
    expect(space.headers.get('ratelimit')).toMatch(/^"wiki-space";r=9;t=\d+$/);
    const { id: spaceId } = await createWikiSpace(org);
    const page = await org.call('POST', `/api/v1/wiki/spaces/${spaceId}/pages`, { body: { title: 'Counted', content: 'Words.', isPublished: true } });
    expect(page.status).toBe(201);
    expect(page.headers.get('ratelimit-policy')).toBe('"wiki-page";q=60;w=3600');
    expect(page.headers.get('ratelimit')).toMatch(/^"wiki-page";r=59;t=\d+$/);
  });

  it('on OAuth client registration, per address', async () => {
    const registered = await api('POST', '/api/v1/oauth/register', {
      org: org.slug,
      headers: { 'x-forwarded-for': address() },
      body: { client_name: 'Limited client', redirect_uris: ['http://127.0.0.1:7777/callback'], token_endpoint_auth_method: 'none' },
    });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('ratelimit-policy')).toBe('"oauth-register";q=5;w=3600');
    expect(registered.headers.get('ratelimit')).toMatch(/^"oauth-register";r=[0-4];t=\d+$/);
  });
});
