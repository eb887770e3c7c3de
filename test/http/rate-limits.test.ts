import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createToken, signupOrg, useRuntime, type TestOrg } from '../support/api.js';
import type { LocalRuntime } from '../../infra/local/runtime.js';

/**
 * The general per-credential limit and the IETF rate-limit headers, on a runtime of this file's
 * own with a limit of 5 requests a minute (the shared runtime runs without one).
 */
const LIMIT = 5;
let runtime: LocalRuntime;
let org: TestOrg;

/** Fixed one-minute windows: start each test early in a window, so none ends while it runs. */
async function freshWindow(): Promise<void> {
  const left = 60 - (Math.floor(Date.now() / 1000) % 60);
  if (left < 20) await new Promise((done) => setTimeout(done, left * 1000 + 200));
}

const parse = (header: string | null) => Object.fromEntries((header ?? '').split(';').slice(1).map((part) => part.split('=') as [string, string]).map(([key, value]) => [key, Number(value)]));

beforeAll(async () => {
  const { startLocalRuntime } = await import('../../infra/local/runtime.js');
  runtime = await startLocalRuntime({ credentialRateLimit: LIMIT, port: 0, dynamoEndpoint: inject('dynamoEndpoint'), tableName: inject('tableName'), logRequests: false, validateResponses: true, sweeperIntervalSeconds: 3600, consumeStream: false });
  useRuntime(runtime);
  org = await signupOrg();
}, 60_000);

afterAll(async () => {
  await runtime?.stop();
});

describe('the per-credential limit', () => {
  it('tells every response where the credential stands, then refuses with 429, Retry-After and nothing changed', async () => {
    await freshWindow();
    const { token } = await createToken(org, org.adminToken, { name: 'limited' });
    const seen: number[] = [];
    for (let call = 0; call < LIMIT; call += 1) {
      const answer = await api('GET', '/api/v1/boards', { token, org: org.slug });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-policy')).toBe(`"credential";q=${LIMIT};w=60`);
      const state = parse(answer.headers.get('ratelimit'));
      expect(answer.headers.get('ratelimit')).toMatch(/^"credential";r=\d+;t=\d+$/);
      expect(state.t).toBeGreaterThan(0);
      expect(state.t).toBeLessThanOrEqual(60);
      seen.push(state.r!);
    }
    expect(seen).toEqual([4, 3, 2, 1, 0]);

    const refused = await api('POST', '/api/v1/boards', { token, org: org.slug, body: { name: 'Over the limit' } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit')).toMatch(/^"credential";r=0;t=\d+$/);
    // Counted before the work: the refused POST created nothing.
    const boards = await api('GET', '/api/v1/boards', { token: org.adminToken, org: org.slug });
    expect((boards.body.data as { name: string }[]).map((board) => board.name)).not.toContain('Over the limit');
  });

  it('counts each credential apart', async () => {
    await freshWindow();
    const [first, second] = [await createToken(org, org.adminToken, { name: 'one' }), await createToken(org, org.adminToken, { name: 'two' })];
    for (let call = 0; call < LIMIT; call += 1) expect((await api('GET', '/api/v1/boards', { token: first.token, org: org.slug })).status).toBe(200);
    expect((await api('GET', '/api/v1/boards', { token: first.token, org: org.slug })).status).toBe(429);
    const other = await api('GET', '/api/v1/boards', { token: second.token, org: org.slug });
    expect(other.status).toBe(200);
    expect(parse(other.headers.get('ratelimit')).r).toBe(LIMIT - 1);
  });

  it('refuses a fresh window to the same token sent as bearer, BEARER, with two spaces or a tab: one credential, one window', async () => {
    await freshWindow();
    const { token } = await createToken(org, org.adminToken, { name: 'spelled' });
    const spellings = [`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `Bearer  ${token}`, `Bearer\t${token}`];
    for (const authorization of spellings) {
      expect((await api('GET', '/api/v1/boards', { org: org.slug, headers: { authorization } })).status).toBe(200);
    }
    for (const authorization of spellings) {
      const refused = await api('GET', '/api/v1/boards', { org: org.slug, headers: { authorization } });
      expect(refused.status).toBe(429);
    }
  });

  it('gives the headers of the per-address limit on a successful OAuth call too', async () => {
    const registered = await api('POST', '/api/v1/oauth/register', { org: org.slug, body: { client_name: 'Public', redirect_uris: ['http://127.0.0.1/cb'] }, headers: { 'x-forwarded-for': '198.51.100.78' } });
    expect(registered.status).toBe(201);
    const revoked = await api('POST', '/api/v1/oauth/revoke', { org: org.slug, body: { token: 'not-a-token', client_id: registered.body.client_id }, headers: { 'x-forwarded-for': '198.51.100.77' } });
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get('ratelimit-policy')).toBe('"oauth-revoke";q=60;w=60');
    expect(revoked.headers.get('ratelimit')).toMatch(/^"oauth-revoke";r=\d+;t=\d+$/);
  });
});
