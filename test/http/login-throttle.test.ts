import { beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { api, signupOrg, type TestOrg, useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Sign-in resists guessing: 10 failed sign-ins per account and 100 per source IP in 15 minutes,
 * then 429 with Retry-After. The local runtime of the tests takes the source IP from
 * X-Forwarded-For, so each test acts from an address of its own.
 */
const newIp = () => `10.${[...randomBytes(3)].join('.')}`;

function signIn(org: TestOrg, ip: string, email: string, password: string) {
  return api('POST', '/api/v1/auth/login', { org: org.slug, headers: { 'x-forwarded-for': ip }, body: { email, password } });
}

const adminEmail = (org: TestOrg) => `admin@${org.slug}.test`;
const RIGHT = 'correct horse battery';

/**
 * The windows are fixed 15-minute windows: a test that straddled a window's end would see its
 * count start again. Each test starts at least 20 s before the current window ends.
 */
async function awayFromWindowEnd(): Promise<void> {
  const window = 15 * 60 * 1000;
  const left = window - (Date.now() % window);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 500));
}

describe('login throttling', () => {
  beforeEach(awayFromWindowEnd, 60_000);

  it('refuses an account after 10 failed sign-ins with 429 and Retry-After, even with the right password', async () => {
    const org = await signupOrg();
    const ip = newIp();
    for (let attempt = 0; attempt < 10; attempt += 1) expect((await signIn(org, ip, adminEmail(org), `wrong ${attempt}`)).status).toBe(401);
    const limited = await signIn(org, ip, adminEmail(org), RIGHT);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // The same account from another address is still refused: the limit is the account's.
    expect((await signIn(org, newIp(), adminEmail(org), RIGHT)).status).toBe(429);
    // Another account of the organization is not affected.
    const other = await org.call('POST', '/api/v1/users', { body: { name: 'Bo', email: 'bo@example.test', password: 'bo password 12', role: 'TEAM_MEMBER' } });
    expect(other.status).toBe(201);
    expect((await signIn(org, ip, 'bo@example.test', 'bo password 12')).status).toBe(200);
  });

  it('throttles an unknown e-mail like a known one', async () => {
    const org = await signupOrg();
    const ip = newIp();
    for (let attempt = 0; attempt < 10; attempt += 1) expect((await signIn(org, ip, 'ghost@example.test', 'guess')).status).toBe(401);
    expect((await signIn(org, ip, 'ghost@example.test', 'guess')).status).toBe(429);
  });

  it('does not count successful sign-ins', async () => {
    const org = await signupOrg();
    const ip = newIp();
    for (let attempt = 0; attempt < 12; attempt += 1) expect((await signIn(org, ip, adminEmail(org), RIGHT)).status).toBe(200);
    for (let attempt = 0; attempt < 9; attempt += 1) expect((await signIn(org, ip, adminEmail(org), 'wrong')).status).toBe(401);
    expect((await signIn(org, ip, adminEmail(org), RIGHT)).status).toBe(200);
  });

  it('holds the account limit exactly under 20 simultaneous guesses', async () => {
    const org = await signupOrg();
    const ip = newIp();
    const results = await Promise.all(Array.from({ length: 20 }, (_, index) => signIn(org, ip, adminEmail(org), `parallel ${index}`)));
    const statuses = results.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
    // 20 password checks at once: 21 s on a loaded 2-core machine.
  }, 90_000);

  it('refuses a source IP after 100 failed sign-ins across accounts and organizations', async () => {
    const org = await signupOrg();
    const elsewhere = await signupOrg();
    const ip = newIp();
    for (let batch = 0; batch < 10; batch += 1) {
      const failed = await Promise.all(Array.from({ length: 10 }, (_, index) => signIn(org, ip, `user${batch}-${index}@example.test`, 'guess')));
      expect(failed.map((response) => response.status)).toEqual(failed.map(() => 401));
    }
    const limited = await signIn(elsewhere, ip, adminEmail(elsewhere), RIGHT);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signIn(elsewhere, newIp(), adminEmail(elsewhere), RIGHT)).status).toBe(200);
  });

  it('answers an unknown e-mail exactly as a wrong password (their equal reads: round-trips/scenarios.test.ts)', async () => {
    const org = await signupOrg();
    const ip = newIp();
    const wrongPassword = await signIn(org, ip, adminEmail(org), 'wrong password');
    const unknownEmail = await signIn(org, ip, 'nobody@example.test', 'wrong password');
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(unknownEmail.body.error.message).toBe(wrongPassword.body.error.message);
  });
});
