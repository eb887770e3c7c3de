import { describe, expect, it } from 'vitest';
import { authenticate } from '../../lib/identity/authenticate.js';
import { AppError } from '../../lib/core/errors.js';
import type { Clock } from '../../lib/core/clock.js';
import { createToken, signupOrg } from '../support/api.js';

const clockAt = (date: Date): Clock => ({ now: () => date });
const inDays = (days: number) => new Date(Date.now() + days * 86400_000);

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof AppError) return error.status;
    throw error;
  }
}

describe('authenticate (against DynamoDB Local, with an injected clock)', () => {
  it('accepts a token before its expiry and refuses it after', async () => {
    const org = await signupOrg();
    const { token } = await createToken(org, org.adminToken, { expiresInDays: 1 });
    expect(await statusOf(authenticate(token, { slug: org.slug, origin: 'http://localhost' }, clockAt(inDays(0.5)), 'req-1'))).toBe(200);
    expect(await statusOf(authenticate(token, { slug: org.slug, origin: 'http://localhost' }, clockAt(inDays(1.01)), 'req-2'))).toBe(401);
  });

  it('refuses a session JWT once its lifetime has passed', async () => {
    const org = await signupOrg();
    expect(await statusOf(authenticate(org.adminToken, { slug: org.slug, origin: 'http://localhost' }, clockAt(inDays(0)), 'req-3'))).toBe(200);
    expect(await statusOf(authenticate(org.adminToken, { slug: org.slug, origin: 'http://localhost' }, clockAt(inDays(2)), 'req-4'))).toBe(401);
  });

  it('resolves the actor, organization and restrictions in one round trip', async () => {
    const org = await signupOrg();
    const { token } = await createToken(org, org.adminToken, { readOnly: true, clientLabel: 'Claude' });
    const ctx = await authenticate(token, { slug: null, origin: 'http://localhost' }, clockAt(new Date()), 'req-5');
    expect(ctx.org.slug).toBe(org.slug);
    expect(ctx.actor).toMatchObject({ userId: org.adminId, isAdmin: true, credential: { kind: 'PERSONAL', readOnly: true, clientLabel: 'Claude' } });
  });
});
