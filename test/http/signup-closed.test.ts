import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, uniqueSlug, useInProcess } from '../support/api.js';
import { resetConfig } from '../../lib/core/config.js';

/**
 * An installation with sign-up turned off (SIGNUP_ENABLED=false; context `signupEnabled=false`):
 * the platform operator creates the organizations, the first one among them.
 */
useInProcess();
const saved = process.env.SIGNUP_ENABLED;

beforeAll(async () => {
  // The in-process handlers read the configuration of this worker.
  await api('GET', '/healthz');
  process.env.SIGNUP_ENABLED = 'false';
  resetConfig();
});

afterAll(() => {
  if (saved === undefined) delete process.env.SIGNUP_ENABLED;
  else process.env.SIGNUP_ENABLED = saved;
  resetConfig();
});

const body = (slug: string) => ({ organizationName: 'Closed', slug, name: 'Olive Operator', email: `olive@${slug}.test`, password: 'correct horse battery' });

describe('sign-up turned off', () => {
  it('refuses everyone with 403, creating nothing', async () => {
    const slug = uniqueSlug('closed');
    const refused = await api('POST', '/api/v1/auth/signup', { body: body(slug) });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const withWrongToken = await api('POST', '/api/v1/auth/signup', { body: body(slug), token: 'wmo_not-the-operator' });
    expect(withWrongToken.status).toBe(403);
    // The slug is still free: nothing was created.
    expect((await api('POST', '/api/v1/auth/signup', { body: body(slug), token: inject('platformAdminToken') })).status).toBe(201);
  });

  it('lets the platform operator create an organization, whose administrator is signed in', async () => {
    const slug = uniqueSlug('first');
    const created = await api('POST', '/api/v1/auth/signup', { body: body(slug), token: inject('platformAdminToken') });
    expect(created.status).toBe(201);
    expect(created.body.organization.slug).toBe(slug);
    const me = await api('GET', '/api/v1/users/me', { token: created.body.token, org: slug });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(`olive@${slug}.test`);
  });
});
