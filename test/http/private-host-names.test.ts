import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, expectValidationError, setPlan } from '../support/api.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { nonPublicHostName } from '../support/hosts.js';
import { pkcePair } from '../support/oauth.js';

/*
 * URLs the service will call later, whose host name is public-looking but resolves to an
 * address inside (loopback here; a private or metadata address in an attack): refused when
 * they are given, not only at every delivery. The runtime of these tests admits no loopback
 * URLs (WEBHOOK_ALLOW_LOOPBACK is off), as deployed.
 */
let setup: BoardSetup;
let inside: { name: string; address: string };

beforeAll(async () => {
  setup = await boardSetup('Hosts');
  await setPlan(setup.org.slug, 'PRO');
  inside = await nonPublicHostName();
}, 60_000);

describe('host names that resolve to a non-public address', () => {
  it('refuses a webhook endpoint whose host name resolves inside, at creation and on update, and changes nothing', async () => {
    const url = `https://${inside.name}/hooks`;
    const created = await setup.org.call('POST', '/api/v1/webhook-endpoints', { body: { name: 'Inside', url, events: ['ticket.created'] } });
    expectValidationError(created, 'url');
    expect(created.body.error.details.issues[0].message).toContain(`resolves to ${inside.address}`);
    expect((await setup.org.call('GET', '/api/v1/webhook-endpoints')).body).toHaveLength(0);

    const endpoint = (await setup.org.call('POST', '/api/v1/webhook-endpoints', { body: { name: 'Outside', url: 'https://hooks.example.com/x', events: ['ticket.created'] } })).body;
    expectValidationError(await setup.org.call('PATCH', `/api/v1/webhook-endpoints/${endpoint.id}`, { body: { url } }), 'url');
    expect((await setup.org.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}`)).body.url).toBe('https://hooks.example.com/x');
  });

  it('refuses a time-booking sync endpoint whose host name resolves inside, and configures nothing', async () => {
    const refused = await setup.org.call('PUT', '/api/v1/time-tracking/sync-endpoint', { body: { url: `https://${inside.name}/bookings` } });
    expectValidationError(refused, 'url');
    expect((await setup.org.call('GET', '/api/v1/time-tracking/sync-endpoint')).status).toBe(404);
  });

  it('refuses a client metadata document URL whose host name resolves inside, before fetching it', async () => {
    const { challenge } = await pkcePair();
    const clientId = `https://${inside.name}/oauth/client.json`;
    const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: 'https://app.example.com/cb', code_challenge: challenge, code_challenge_method: 'S256', state: 'state-12345', org: setup.org.slug });
    const page = await fetch(new URL(`/api/v1/oauth/authorize?${query}`, baseUrl()));
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain(`non-public address ${inside.address}`);
  });

  it('names the setting that admits loopback URLs locally when refusing one', async () => {
    const refused = await setup.org.call('POST', '/api/v1/webhook-endpoints', { body: { name: 'Local', url: 'http://127.0.0.1:9999/hooks', events: ['ticket.created'] } });
    expectValidationError(refused, 'url');
    expect(refused.body.error.details.issues[0].message).toContain('WEBHOOK_ALLOW_LOOPBACK=true');
  });
});
