import { createHmac } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '../../infra/local/runtime.js';
import { startDeliveryRuntime } from '../support/delivery-runtime.js';
import { localSqsClient } from '../../infra/local/sqs.js';
import { db } from '../../lib/db/service.js';
import { attemptDelivery } from '../../lib/webhooks/attempts.js';
import { automaticDeliveryId } from '../../lib/webhooks/delivery-records.js';
import { fanOutEvent } from '../../lib/webhooks/fanout.js';
import { setPlan, type ApiResponse } from '../support/api.js';
import { boardSetup, lapseClaim, type BoardSetup } from '../support/tickets.js';
import { createAgent, createTicket } from '../support/factories.js';
import { Receiver, type ReceivedRequest } from '../support/receiver.js';
import { waitUntil } from '../support/wait.js';

/*
 * Webhook delivery end to end: the stream consumer fans an event out to the subscribed
 * endpoints through SQS, the delivery worker (queue-triggered, as deployed) signs and POSTs it
 * to a real local receiver, records every attempt, retries on the (shortened) schedule, parks
 * the last failure in the dead-letter queue, and deactivates an endpoint that is gone. This
 * file runs its own local runtime: loopback URLs admitted, retries after 1 s and 1 s.
 */
const PATH = '/api/v1/webhook-endpoints';
let runtime: LocalRuntime;
const receiver = new Receiver();
let setup: BoardSetup;

beforeAll(async () => {
  runtime = await startDeliveryRuntime('wm-webhook-delivery');
  await receiver.start();
  setup = await boardSetup('Hooks');
  await setPlan(setup.org.slug, 'PRO');
}, 120_000);

afterAll(async () => {
  await receiver.stop();
  await runtime?.stop();
});

async function endpoint(path: string, events: string[] = ['ticket.created']): Promise<{ id: string; secret: string }> {
  const created = await setup.org.call('POST', PATH, { body: { name: `Receiver ${path}`, url: `${receiver.url}${path}`, events } });
  expect(created.status).toBe(201);
  return created.body;
}

const deliveriesOf = async (endpointId: string) => (await setup.org.call('GET', `${PATH}/${endpointId}/deliveries`)).body;

function verifyWithIndependentTools(request: ReceivedRequest, secret: string) {
  const expected = `sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`;
  expect(request.headers['x-service-signature-256']).toBe(expected);
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  }) as Record<string, any>;
}

describe('webhook delivery', () => {
  it('delivers a subscribed event once, signed so node:crypto and standardwebhooks both verify it', async () => {
    const hook = await endpoint('/created');
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Deliver me', description: 'secret plans' });
    const [request] = await receiver.waitFor('/created');
    const verified = verifyWithIndependentTools(request!, hook.secret);
    expect(verified).toEqual({
      id: expect.stringMatching(/^evt_/),
      event: 'ticket.created',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      organizationId: setup.org.orgId,
      data: { ticketId: ticket.id, boardId: setup.boardId, projectId: setup.boardId, organizationId: setup.org.orgId, claimCount: 0 },
    });
    expect(request!.body).not.toContain('secret plans');
    expect(request!.method).toBe('POST');
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'work-management-webhooks/1',
      'x-service-event': 'ticket.created',
      'x-service-delivery': expect.stringMatching(/^dlv_/),
    });
    expect(request!.headers['webhook-id']).toBe(request!.headers['x-service-delivery']);

    const deliveries = await waitUntil(() => deliveriesOf(hook.id), (list) => list.length === 1);
    expect(deliveries).toEqual([
      {
        id: request!.headers['x-service-delivery'],
        endpointId: hook.id,
        eventType: 'ticket.created',
        statusCode: 200,
        success: true,
        attempt: 1,
        error: null,
        durationMs: expect.any(Number),
        createdAt: expect.any(String),
      },
    ]);
    // Nothing else arrives: the ticket's other events are not subscribed.
    await setup.org.call('PATCH', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`, { body: { title: 'Renamed' } });
    await runtime.drainStream();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.on('/created')).toHaveLength(1);
  });

  it('retries a failing receiver on the schedule with the same delivery id, and records each attempt', async () => {
    receiver.respond('/flaky', (_request, count) => ({ status: count < 3 ? 500 : 204 }));
    const hook = await endpoint('/flaky');
    await createTicket(setup.org, setup.boardId);
    const requests = await receiver.waitFor('/flaky', 3);
    expect(new Set(requests.map((request) => request.headers['x-service-delivery'])).size).toBe(1);
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    // Retries wait for the schedule (1 s ±10 %), they are not immediate.
    expect(requests[1]!.receivedAt - requests[0]!.receivedAt).toBeGreaterThanOrEqual(800);
    expect(requests[2]!.receivedAt - requests[1]!.receivedAt).toBeGreaterThanOrEqual(800);
    for (const request of requests) verifyWithIndependentTools(request, hook.secret);

    const deliveries = await waitUntil(() => deliveriesOf(hook.id), (list) => list.length === 3);
    expect(deliveries.map((delivery: any) => [delivery.attempt, delivery.statusCode, delivery.success, delivery.error])).toEqual([
      [3, 204, true, null],
      [2, 500, false, 'HTTP 500'],
      [1, 500, false, 'HTTP 500'],
    ]);
    const stored = (await db().entities.webhookEndpoint.get({ orgId: setup.org.orgId, endpointId: hook.id }).go()).data!;
    expect(stored.failingSince).toBeUndefined();
    expect(stored.isActive).toBe(true);
  });

  it('waits longer when a 503 asks for it with Retry-After', async () => {
    receiver.respond('/busy', (_request, count) => (count === 1 ? { status: 503, headers: { 'retry-after': '3' } } : { status: 200 }));
    await endpoint('/busy');
    await createTicket(setup.org, setup.boardId);
    const [first, second] = await receiver.waitFor('/busy', 2);
    // The schedule says 1 s; the receiver asked for 3.
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(2800);
    expect(second!.headers['x-service-delivery']).toBe(first!.headers['x-service-delivery']);
  });

  it('parks a delivery in the dead-letter queue after its last failed attempt', async () => {
    receiver.respond('/down', () => ({ status: 502 }));
    const hook = await endpoint('/down');
    await createTicket(setup.org, setup.boardId);
    await receiver.waitFor('/down', 3);
    const sqs = localSqsClient(runtime.sqsEndpoint);
    try {
      const parked = await waitUntil(
        async () => (await sqs.send(new ReceiveMessageCommand({ QueueUrl: runtime.webhookDeadLetterQueueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }))).Messages ?? [],
        (messages) => messages.some((message) => JSON.parse(message.Body!).endpointId === hook.id),
      );
      const message = parked.find((entry) => JSON.parse(entry.Body!).endpointId === hook.id)!;
      expect(JSON.parse(message.Body!)).toEqual({ orgId: setup.org.orgId, endpointId: hook.id, deliveryId: receiver.on('/down')[0]!.headers['x-service-delivery'] });
      expect(message.MessageAttributes?.reason?.StringValue).toBe('attempt 3 of 3 failed: HTTP 502');
    } finally {
      sqs.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.on('/down')).toHaveLength(3);
    expect((await deliveriesOf(hook.id)).map((delivery: any) => delivery.attempt)).toEqual([3, 2, 1]);
  });

  it('deactivates an endpoint that answers 410 Gone at once and notifies the administrators', async () => {
    receiver.respond('/gone', () => ({ status: 410 }));
    const hook = await endpoint('/gone');
    await createTicket(setup.org, setup.boardId);
    await receiver.waitFor('/gone', 1);
    const shown = await waitUntil(async () => (await setup.org.call('GET', `${PATH}/${hook.id}`)).body, (body) => body.isActive === false);
    expect(shown.isActive).toBe(false);
    const notifications = (await setup.org.call('GET', '/api/v1/notifications')).body.data;
    expect(notifications).toContainEqual(
      expect.objectContaining({ type: 'WEBHOOK_ENDPOINT_DISABLED', data: expect.objectContaining({ endpointId: hook.id, reason: 'The endpoint answered 410 Gone' }) }),
    );
    // An inactive endpoint receives no events, and the gone delivery is not retried.
    await createTicket(setup.org, setup.boardId);
    await runtime.drainStream();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.on('/gone')).toHaveLength(1);
  });

  it('pings an endpoint (even an inactive one) with a signed ping event', async () => {
    const hook = await endpoint('/ping');
    await setup.org.call('PATCH', `${PATH}/${hook.id}`, { body: { isActive: false } });
    const ping = await setup.org.call('POST', `${PATH}/${hook.id}/ping`);
    expect(ping.status).toBe(204);
    const [request] = await receiver.waitFor('/ping');
    const verified = verifyWithIndependentTools(request!, hook.secret);
    expect(verified).toMatchObject({ event: 'ping', organizationId: setup.org.orgId, data: { endpointId: hook.id } });
    expect(request!.headers['x-service-event']).toBe('ping');
    const deliveries = await waitUntil(() => deliveriesOf(hook.id), (list) => list.length === 1);
    expect(deliveries[0]).toMatchObject({ eventType: 'ping', attempt: 1, success: true, statusCode: 200 });
  });

  it('pages the delivery log to its end by the Link header, newest first, each attempt once', async () => {
    const hook = await endpoint('/paged');
    for (let ping = 0; ping < 7; ping += 1) expect((await setup.org.call('POST', `${PATH}/${hook.id}/ping`)).status).toBe(204);
    const whole = await waitUntil(() => deliveriesOf(hook.id), (list) => list.length === 7);
    const pages: any[][] = [];
    let address: string | undefined = `${PATH}/${hook.id}/deliveries?limit=3`;
    while (address) {
      const page: ApiResponse = await setup.org.call('GET', address);
      expect(page.status).toBe(200);
      pages.push(page.body);
      address = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
    }
    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(whole);
    expect(whole.map((attempt: any) => attempt.createdAt)).toEqual(whole.map((attempt: any) => attempt.createdAt).sort().reverse());
    // Exactly a page's worth left: no link to an empty page.
    const exact = await setup.org.call('GET', `${PATH}/${hook.id}/deliveries?limit=7`);
    expect(exact.body).toHaveLength(7);
    expect(exact.headers.get('link')).toBeNull();
    const forged = await setup.org.call('GET', `${PATH}/${hook.id}/deliveries?before=bm90LWEtY3Vyc29y`);
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('redelivers a delivery as a new delivery of the same envelope', async () => {
    const hook = await endpoint('/again');
    await createTicket(setup.org, setup.boardId);
    const [first] = await receiver.waitFor('/again');
    const deliveryId = String(first!.headers['x-service-delivery']);
    const again = await setup.org.call('POST', `${PATH}/${hook.id}/deliveries/${deliveryId}/redeliver`);
    expect(again.status).toBe(204);
    const [, second] = await receiver.waitFor('/again', 2);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['x-service-delivery']).not.toBe(deliveryId);
    verifyWithIndependentTools(second!, hook.secret);
    const unknown = await setup.org.call('POST', `${PATH}/${hook.id}/deliveries/dlv_UNKNOWN/redeliver`);
    expect(unknown.status).toBe(404);
    const elsewhere = await endpoint('/elsewhere');
    expect((await setup.org.call('POST', `${PATH}/${elsewhere.id}/deliveries/${deliveryId}/redeliver`)).status).toBe(404);
  });

  it('delivers an event once per endpoint however often the fan-out and its messages are replayed', async () => {
    const hook = await endpoint('/once', ['ticket.updated']);
    const event = { eventId: `evt_REPLAY${Date.now()}`, orgId: setup.org.orgId, type: 'ticket.updated', occurredAt: new Date().toISOString(), data: { ticketId: 'tkt_X' } };
    const clock = { now: () => new Date() };
    await Promise.all([fanOutEvent(event, clock), fanOutEvent(event, clock), fanOutEvent(event, clock)]);
    await fanOutEvent(event, clock);
    // A duplicate SQS message for the same delivery is dropped by the worker.
    const sqs = localSqsClient(runtime.sqsEndpoint);
    const message = JSON.stringify({ orgId: setup.org.orgId, endpointId: hook.id, deliveryId: automaticDeliveryId(event.eventId, hook.id) });
    await sqs.send(new SendMessageCommand({ QueueUrl: runtime.webhookQueueUrl, MessageBody: message }));
    sqs.destroy();
    await receiver.waitFor('/once');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.on('/once')).toHaveLength(1);
  });

  it('refuses at delivery a URL that reaches a non-public address, and says so in the attempt', async () => {
    const hook = await endpoint('/never');
    await db().entities.webhookEndpoint.patch({ orgId: setup.org.orgId, endpointId: hook.id }).set({ url: 'https://169.254.169.254/latest/meta-data' }).go();
    const ping = await setup.org.call('POST', `${PATH}/${hook.id}/ping`);
    expect(ping.status).toBe(204);
    const [attempt] = await waitUntil(() => deliveriesOf(hook.id), (list) => list.length === 1);
    expect(attempt).toMatchObject({ success: false, statusCode: 0, error: 'refused to connect to the non-public address 169.254.169.254' });
  });
});

describe('event payloads', () => {
  const BASE = ['ticketId', 'boardId', 'projectId', 'organizationId', 'claimCount'];
  /** docs/webhooks.md: the data fields of each ticket and comment event, exactly; and the fence, claimCount, and the handoff a lease left (issue 29). */
  const FIELDS: Record<string, string[]> = {
    'ticket.created': BASE,
    'ticket.updated': [...BASE, 'actorId'],
    'ticket.deleted': BASE,
    'ticket.status_changed': [...BASE, 'oldStatusId', 'newStatusId', 'actorId'],
    'ticket.assigned': [...BASE, 'oldAssigneeId', 'newAssigneeId'],
    'ticket.claimed': [...BASE, 'claimedById', 'claimExpiresAt'],
    'ticket.claim_released': [...BASE, 'releasedById', 'previousClaimedById', 'reason', 'handoffId'],
    'ticket.claim_expired': [...BASE, 'previousClaimedById', 'claimExpiresAt', 'handoffId'],
    'comment.created': [...BASE, 'commentId', 'authorId', 'isSecret'],
  };

  it('delivers every ticket and comment event with exactly its documented data fields, ids only', async () => {
    const hook = await endpoint('/all', Object.keys(FIELDS));
    const agent = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Every event', description: 'private description' });
    const path = `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}`;
    const inProgress = setup.statuses.IN_PROGRESS ?? Object.values(setup.statuses).find((status: any) => status.id !== ticket.status?.id);
    expect((await setup.org.call('PATCH', path, { body: { statusId: inProgress.id, assigneeId: setup.org.adminId } })).status).toBe(200);
    expect((await setup.org.call('POST', `${path}/comments`, { body: { content: 'private comment text' } })).status).toBe(201);
    expect((await agent.call('POST', `${path}/claim`, {})).status).toBe(201);
    expect((await agent.call('DELETE', `${path}/claim`, { reason: 'Handing back' })).status).toBe(200);
    expect((await agent.call('POST', `${path}/claim`, {})).status).toBe(201);
    await lapseClaim(ticket.id);
    await runtime.runSchedule();
    expect((await setup.org.call('DELETE', path)).status).toBe(204);

    const expected = ['ticket.created', 'ticket.updated', 'ticket.status_changed', 'ticket.assigned', 'comment.created', 'ticket.claimed', 'ticket.claim_released', 'ticket.claim_expired', 'ticket.deleted'];
    const requests = await waitUntil(
      async () => receiver.on('/all'),
      (received) => expected.every((type) => received.some((request) => JSON.parse(request.body).event === type)),
    );
    for (const request of requests) {
      const envelope = verifyWithIndependentTools(request, hook.secret);
      expect(Object.keys(envelope.data).sort(), envelope.event).toEqual([...FIELDS[envelope.event]!].sort());
      expect(envelope.data).toMatchObject({ ticketId: ticket.id, boardId: setup.boardId, projectId: setup.boardId, organizationId: setup.org.orgId });
      expect(request.body).not.toContain('private description');
      expect(request.body).not.toContain('private comment text');
    }
    expect(new Set(requests.map((request) => JSON.parse(request.body).event))).toEqual(new Set(expected));
    const comment = requests.map((request) => JSON.parse(request.body)).find((body) => body.event === 'comment.created');
    expect(comment.data).toMatchObject({ authorId: setup.org.adminId, isSecret: false, commentId: expect.stringMatching(/^cmt_/) });
  }, 120_000);
});

describe('endpoint health', () => {
  it('deactivates an endpoint whose deliveries have all failed for 3 days (injected clock)', async () => {
    receiver.respond('/failing', () => ({ status: 500 }));
    const hook = await endpoint('/failing', ['ticket.deleted']);
    const day0 = new Date('2026-11-01T00:00:00.000Z');
    const attemptAt = async (at: Date, n: number) => {
      const deliveryId = `dlv_HEALTH${n}${Date.now()}`;
      await db()
        .entities.webhookDelivery.create({
          orgId: setup.org.orgId,
          endpointId: hook.id,
          deliveryId,
          eventId: `evt_HEALTH${n}`,
          eventType: 'ticket.deleted',
          body: '{}',
          maxAttempts: 8,
          manual: false,
          attemptsMade: 0,
          state: 'pending',
          createdAt: at.toISOString(),
          ttl: Math.floor(at.getTime() / 1000) + 86400,
        })
        .go();
      return attemptDelivery({ orgId: setup.org.orgId, endpointId: hook.id, deliveryId }, `msg-${deliveryId}`, { clock: { now: () => at }, random: () => 0.5 });
    };
    const stored = async () => (await db().entities.webhookEndpoint.get({ orgId: setup.org.orgId, endpointId: hook.id }).go()).data!;

    expect(await attemptAt(day0, 1)).toEqual({ kind: 'retry', delaySeconds: 1 });
    expect((await stored()).failingSince).toBe(day0.toISOString());
    expect(await attemptAt(new Date(day0.getTime() + 2 * 86400_000), 2)).toEqual({ kind: 'retry', delaySeconds: 1 });
    expect((await stored()).isActive).toBe(true);
    expect(await attemptAt(new Date(day0.getTime() + 3 * 86400_000), 3)).toEqual({ kind: 'done' });
    expect((await stored()).isActive).toBe(false);
    const notifications = (await setup.org.call('GET', '/api/v1/notifications')).body.data;
    expect(notifications).toContainEqual(
      expect.objectContaining({ type: 'WEBHOOK_ENDPOINT_DISABLED', data: expect.objectContaining({ endpointId: hook.id, reason: 'Every delivery to the endpoint failed for 3 days' }) }),
    );
  });

  it('a success ends the failing run', async () => {
    let failing = true;
    receiver.respond('/recovers', () => ({ status: failing ? 500 : 200 }));
    const hook = await endpoint('/recovers', ['ticket.deleted']);
    const make = async (n: number) => {
      const deliveryId = `dlv_RECOVER${n}${Date.now()}`;
      const now = new Date();
      await db()
        .entities.webhookDelivery.create({
          orgId: setup.org.orgId, endpointId: hook.id, deliveryId, eventId: `evt_R${n}`, eventType: 'ticket.deleted', body: '{}',
          maxAttempts: 1, manual: false, attemptsMade: 0, state: 'pending', createdAt: now.toISOString(), ttl: Math.floor(now.getTime() / 1000) + 86400,
        })
        .go();
      return attemptDelivery({ orgId: setup.org.orgId, endpointId: hook.id, deliveryId }, `msg-${deliveryId}`, { clock: { now: () => new Date() } });
    };
    expect(await make(1)).toEqual({ kind: 'dead', reason: 'attempt 1 of 1 failed: HTTP 500' });
    expect((await db().entities.webhookEndpoint.get({ orgId: setup.org.orgId, endpointId: hook.id }).go()).data!.failingSince).toBeDefined();
    failing = false;
    expect(await make(2)).toEqual({ kind: 'done' });
    expect((await db().entities.webhookEndpoint.get({ orgId: setup.org.orgId, endpointId: hook.id }).go()).data!.failingSince).toBeUndefined();
  });
});
