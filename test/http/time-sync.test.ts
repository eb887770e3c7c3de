import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '../../infra/local/runtime.js';
import { startDeliveryRuntime } from '../support/delivery-runtime.js';
import { api, createMember, expectValidationError, setPlan, type ApiResponse } from '../support/api.js';
import { createAgent, createTicket, type TestAgent } from '../support/factories.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { Receiver, type ReceivedRequest } from '../support/receiver.js';
import { waitUntil } from '../support/wait.js';

/*
 * The external time-booking sync end to end: approved entries are pushed through the webhook
 * delivery machinery (outbox record, stream consumer, SQS queue, delivery worker) to a real
 * local receiver, signed like webhooks; the receiver's answers (failure, recovery, `billed`)
 * land on the entry. This file runs its own local runtime: loopback URLs admitted, retries
 * after 1 s and 1 s.
 */
const T = '/api/v1/time-tracking';
let runtime: LocalRuntime;
const receiver = new Receiver();
let setup: BoardSetup;
let ticket: any;
let member: { id: string; token: string };
let agent: TestAgent;
let secret: string;
const asMember = (method: string, path: string, body?: unknown): Promise<ApiResponse> => api(method, path, { token: member.token, org: setup.org.slug, ...(body ? { body } : {}) });

beforeAll(async () => {
  runtime = await startDeliveryRuntime('wm-time-sync');
  await receiver.start();
  setup = await boardSetup('Sync');
  await setPlan(setup.org.slug, 'PRO');
  member = await createMember(setup.org, { name: 'Sam Syncer' });
  await setup.org.call('POST', `/api/v1/boards/${setup.boardId}/members`, { body: { userId: member.id } });
  agent = await createAgent(setup.org, { agent: { name: 'Booker' }, settings: { timeFactor: 2 }, boardIds: [setup.boardId] });
  ticket = await createTicket(setup.org, setup.boardId, { title: 'Billable work' });
  const configured = await setup.org.call('PUT', `${T}/sync-endpoint`, { body: { url: `${receiver.url}/bookings` } });
  expect(configured.status).toBe(200);
  secret = configured.body.secret;
}, 120_000);

afterAll(async () => {
  await receiver.stop();
  await runtime?.stop();
});

/** The entry as its owner lists it. */
async function entryOf(id: string, token = member.token) {
  const list = await api('GET', `${T}/entries?limit=100`, { token, org: setup.org.slug });
  return list.body.data.find((entry: any) => entry.id === id);
}

const pushesOf = (entryId: string): ReceivedRequest[] => receiver.on('/bookings').filter((request) => JSON.parse(request.body).data.entryId === entryId);

function verify(request: ReceivedRequest) {
  expect(request.headers['x-service-signature-256']).toBe(`sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`);
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  }) as Record<string, any>;
}

describe('time-booking sync endpoint', () => {
  it('is configured by administrators over HTTPS (or loopback here), its secret shown once, public addresses only', async () => {
    const shown = await setup.org.call('GET', `${T}/sync-endpoint`);
    expect(shown.body).toEqual({ id: expect.stringMatching(/^tse_/), url: `${receiver.url}/bookings`, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(JSON.stringify(shown.body)).not.toContain(secret);
    expectValidationError(await setup.org.call('PUT', `${T}/sync-endpoint`, { body: { url: 'http://10.1.2.3/book' } }), 'url');
    expectValidationError(await setup.org.call('PUT', `${T}/sync-endpoint`, { body: { url: 'ftp://example.com/book' } }), 'url');
    // Changing the URL keeps the secret; nothing secret in the answer.
    const same = await setup.org.call('PUT', `${T}/sync-endpoint`, { body: { url: `${receiver.url}/bookings` } });
    expect(same.body.secret).toBeUndefined();
    expect(same.body.id).toBe(shown.body.id);
  });

  it('pushes a person\'s entry at once, signed like a webhook, and records the receiver\'s id', async () => {
    receiver.respond('/bookings', (request) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ externalId: `EXT-${JSON.parse(request.body).data.entryId.slice(-6)}` }) }));
    const created = await asMember('POST', `${T}/entries`, { ticketId: ticket.id, durationMinutes: 90, description: 'Invoiceable' });
    expect(created.body.syncStatus).toBe('PENDING');
    const [push] = await waitUntil(async () => pushesOf(created.body.id), (list) => list.length >= 1);
    const body = verify(push!);
    expect(body).toMatchObject({
      event: 'time_entry.sync',
      organizationId: setup.org.orgId,
      data: {
        entryId: created.body.id,
        deleted: false,
        userId: member.id,
        userName: 'Sam Syncer',
        isAgent: false,
        ticketId: ticket.id,
        displayId: ticket.displayId,
        boardId: setup.boardId,
        bookingItem: null,
        date: created.body.date,
        durationMinutes: 90,
        description: 'Invoiceable',
        state: 'APPROVED',
      },
    });
    expect(push!.headers['user-agent']).toBe('work-management-webhooks/1');
    const synced = await waitUntil(() => entryOf(created.body.id), (entry) => entry.syncStatus === 'SYNCED');
    expect(synced).toMatchObject({ syncStatus: 'SYNCED', externalId: `EXT-${created.body.id.slice(-6)}`, billed: false, syncError: null, syncedAt: expect.any(String) });
  });

  it('pushes an agent\'s entry only once it is approved, with raw and factored minutes', async () => {
    receiver.respond('/bookings', () => ({ status: 204 }));
    const created = await agent.call('POST', `${T}/entries`, { ticketId: ticket.id, durationMinutes: 25 });
    expect(created.body).toMatchObject({ state: 'PENDING', syncStatus: null });
    await runtime.drainStream();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pushesOf(created.body.id)).toHaveLength(0);
    const approved = await setup.org.call('POST', `${T}/entries/${created.body.id}/approve`);
    expect(approved.body.syncStatus).toBe('PENDING');
    const [push] = await waitUntil(async () => pushesOf(created.body.id), (list) => list.length >= 1);
    expect(verify(push!).data).toMatchObject({ isAgent: true, rawMinutes: 25, durationMinutes: 50, timeFactor: 2, state: 'APPROVED', approvedAt: expect.any(String) });
    expect(await waitUntil(() => entryOf(created.body.id, agent.token), (entry) => entry.syncStatus === 'SYNCED')).toMatchObject({ syncStatus: 'SYNCED', externalId: null });
  });

  it('marks a failing push FAILED, re-syncs once the receiver recovers, and locks the entry when it answers billed', async () => {
    receiver.respond('/bookings', () => ({ status: 503 }));
    const created = (await asMember('POST', `${T}/entries`, { ticketId: ticket.id, durationMinutes: 30, description: 'Flaky' })).body;
    // Three attempts (the first and two retries after 1 s), then the delivery is given up.
    await waitUntil(async () => pushesOf(created.id), (list) => list.length >= 3);
    const failed = await waitUntil(() => entryOf(created.id), (entry) => entry.syncStatus === 'FAILED');
    expect(failed).toMatchObject({ syncStatus: 'FAILED', syncError: 'HTTP 503', syncedAt: null });
    expect(pushesOf(created.id).every((request) => request.headers['x-service-delivery'] === pushesOf(created.id)[0]!.headers['x-service-delivery'])).toBe(true);

    receiver.respond('/bookings', () => ({ status: 200, body: JSON.stringify({ externalId: 'INV-7' }) }));
    const resynced = await asMember('POST', `${T}/entries/${created.id}/resync`);
    expect(resynced.status).toBe(200);
    expect(resynced.body.syncStatus).toBe('PENDING');
    expect(await waitUntil(() => entryOf(created.id), (entry) => entry.syncStatus === 'SYNCED')).toMatchObject({ externalId: 'INV-7', billed: false, syncError: null });
    const pushes = pushesOf(created.id);
    expect(JSON.parse(pushes.at(-1)!.body).data.externalId).toBeNull();
    expect(pushes.at(-1)!.headers['x-service-delivery']).not.toBe(pushes[0]!.headers['x-service-delivery']);

    receiver.respond('/bookings', () => ({ status: 200, body: JSON.stringify({ externalId: 'INV-7', billed: true }) }));
    await asMember('POST', `${T}/entries/${created.id}/resync`);
    // The push carries the id the receiver gave, so it can update its booking.
    const billedPush = (await waitUntil(async () => pushesOf(created.id), (list) => list.length > pushes.length)).at(-1)!;
    expect(JSON.parse(billedPush.body).data.externalId).toBe('INV-7');
    const billed = await waitUntil(() => entryOf(created.id), (entry) => entry.billed === true);
    expect(billed).toMatchObject({ billed: true, syncStatus: 'SYNCED' });

    for (const [method, path, body] of [
      ['POST', `${T}/entries/${created.id}/resync`, undefined],
      ['PATCH', `${T}/entries/${created.id}`, { durationMinutes: 1 }],
      ['DELETE', `${T}/entries/${created.id}`, undefined],
    ] as const) {
      const refused = await setup.org.call(method, path, body ? { body } : {});
      expect([method, refused.status, refused.body.error.code]).toEqual([method, 409, 'ENTRY_BILLED']);
    }
  });

  it('lets only the owner or an administrator re-sync, and only approved entries', async () => {
    receiver.respond('/bookings', () => ({ status: 200 }));
    const mine = (await asMember('POST', `${T}/entries`, { ticketId: ticket.id, durationMinutes: 5 })).body;
    const colleague = await createMember(setup.org, { name: 'Colleague' });
    expect((await api('POST', `${T}/entries/${mine.id}/resync`, { token: colleague.token, org: setup.org.slug })).status).toBe(403);
    expect((await setup.org.call('POST', `${T}/entries/${mine.id}/resync`)).status).toBe(200);
    const pending = (await agent.call('POST', `${T}/entries`, { ticketId: ticket.id, durationMinutes: 5 })).body;
    expect((await agent.call('POST', `${T}/entries/${pending.id}/resync`)).status).toBe(409);
  });

  it('pushes the deletion of a pushed entry, and answers SYNC_NOT_CONFIGURED once the endpoint is removed', async () => {
    receiver.respond('/bookings', () => ({ status: 200 }));
    const entry = (await asMember('POST', `${T}/entries`, { ticketId: ticket.id, durationMinutes: 12 })).body;
    await waitUntil(() => entryOf(entry.id), (found) => found.syncStatus === 'SYNCED');
    expect((await asMember('DELETE', `${T}/entries/${entry.id}`)).status).toBe(204);
    const pushes = await waitUntil(async () => pushesOf(entry.id), (list) => list.length >= 2);
    expect(verify(pushes.at(-1)!).data).toMatchObject({ entryId: entry.id, deleted: true, durationMinutes: 12 });

    const kept = (await asMember('POST', `${T}/entries`, { ticketId: ticket.id, durationMinutes: 3 })).body;
    expect((await setup.org.call('DELETE', `${T}/sync-endpoint`)).status).toBe(204);
    expect((await setup.org.call('GET', `${T}/sync-endpoint`)).status).toBe(404);
    expect((await setup.org.call('DELETE', `${T}/sync-endpoint`)).status).toBe(404);
    const refused = await asMember('POST', `${T}/entries/${kept.id}/resync`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('SYNC_NOT_CONFIGURED');
    // New entries are no longer pushed.
    expect((await asMember('POST', `${T}/entries`, { ticketId: ticket.id, durationMinutes: 4 })).body.syncStatus).toBeNull();
  });
});
