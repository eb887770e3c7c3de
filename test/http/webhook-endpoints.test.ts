import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, expectValidationError, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { db } from '../../lib/db/service.js';
import { createOrg } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Webhook endpoints (docs/webhooks.md): Pro plan and up, webhooks:view / webhooks:manage, at
 * most 20 per organization, HTTPS URLs of public addresses only, the secret shown once and
 * stored sealed.
 */
const PATH = '/api/v1/webhook-endpoints';
const valid = (overrides: Record<string, unknown> = {}) => ({ name: 'CI hooks', url: 'https://hooks.example.com/work', events: ['ticket.created', 'ticket.claimed'], ...overrides });

describe('webhook endpoints', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg({ plan: 'PRO' });
  });

  it('creates an endpoint and shows its secret once, never again; the table holds it sealed', async () => {
    const created = await org.call('POST', PATH, { body: valid() });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_/),
      name: 'CI hooks',
      url: 'https://hooks.example.com/work',
      events: ['ticket.created', 'ticket.claimed'],
      isActive: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const { secret, ...shown } = created.body;
    expect((await org.call('GET', `${PATH}/${created.body.id}`)).body).toEqual(shown);
    expect((await org.call('GET', PATH)).body).toContainEqual(shown);

    const stored = (await db().entities.webhookEndpoint.get({ orgId: org.orgId, endpointId: created.body.id }).go()).data!;
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
    expect(Buffer.from(stored.sealedSecret, 'base64').length).toBe(12 + secret.length + 16);
  });

  it('updates name, url, events and isActive', async () => {
    const { id } = (await org.call('POST', PATH, { body: valid({ name: 'Before' }) })).body;
    const patched = await org.call('PATCH', `${PATH}/${id}`, { body: { name: 'After', url: 'https://other.example.org/in', events: ['comment.created'], isActive: false } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, name: 'After', url: 'https://other.example.org/in', events: ['comment.created'], isActive: false });
    expect((await org.call('GET', `${PATH}/${id}`)).body).toEqual(patched.body);
  });

  it.each([
    ['http://hooks.example.com/work', 'https'],
    ['https://127.0.0.1/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'private'],
    ['https://[::ffff:10.0.0.1]/hook', 'private'],
    ['https://localhost/hook', 'this machine'],
    ['not a url', 'absolute'],
  ])('refuses the URL %s with 400 naming url, and creates nothing', async (url, reason) => {
    const before = (await org.call('GET', PATH)).body.length;
    const response = await org.call('POST', PATH, { body: valid({ url }) });
    expectValidationError(response, 'url');
    expect(response.body.error.details.issues[0].message.toLowerCase()).toContain(reason);
    expect((await org.call('GET', PATH)).body).toHaveLength(before);
  });

  it('refuses unknown events, no events, a long name and unknown fields with 400', async () => {
    expectValidationError(await org.call('POST', PATH, { body: valid({ events: ['ticket.created', 'ticket.exploded'] }) }), 'events.1');
    expectValidationError(await org.call('POST', PATH, { body: valid({ events: [] }) }), 'events');
    expectValidationError(await org.call('POST', PATH, { body: valid({ name: 'x'.repeat(101) }) }), 'name');
    expectValidationError(await org.call('POST', PATH, { body: valid({ secret: 'whsec_mine' }) }), 'secret');
  });

  it('refuses a private URL on update and changes nothing', async () => {
    const { id, url } = (await org.call('POST', PATH, { body: valid() })).body;
    expectValidationError(await org.call('PATCH', `${PATH}/${id}`, { body: { url: 'https://10.0.0.5/hook' } }), 'url');
    expect((await org.call('GET', `${PATH}/${id}`)).body.url).toBe(url);
  });

  it('deletes an endpoint; then it is gone, and another organization never sees it', async () => {
    const { id } = (await org.call('POST', PATH, { body: valid() })).body;
    const other = await createOrg({ plan: 'PRO' });
    expect((await other.call('GET', `${PATH}/${id}`)).status).toBe(404);
    expect((await other.call('DELETE', `${PATH}/${id}`)).status).toBe(404);
    expect((await org.call('DELETE', `${PATH}/${id}`)).status).toBe(204);
    expect((await org.call('GET', `${PATH}/${id}`)).status).toBe(404);
    expect((await org.call('DELETE', `${PATH}/${id}`)).status).toBe(404);
  });

  it('lets a member view endpoints but not manage them', async () => {
    const member = await createMember(org);
    const as = (method: string, path: string, body?: unknown) => api(method, path, { token: member.token, org: org.slug, body });
    expect((await as('GET', PATH)).status).toBe(200);
    const refused = await as('POST', PATH, valid());
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
  });

  it('is a Pro feature: a FREE organization gets 403 PLAN_FEATURE_REQUIRED', async () => {
    const free = await signupOrg();
    for (const [method, body] of [['GET', undefined], ['POST', valid()]] as const) {
      const response = await free.call(method, PATH, body ? { body } : {});
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('PLAN_FEATURE_REQUIRED');
    }
  });
});

// The limit of 20 endpoints under simultaneous creates, and a delete freeing a place: test/http/count-limits.test.ts.
