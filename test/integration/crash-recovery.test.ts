import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '../support/receiver.js';
import { caller, fixedKeys, killSelfHosted, newDataDir, startSelfHosted, type SelfHosted } from '../support/self-hosted.js';

/**
 * `npm start` with DATA_DIR, as a small team self-hosts it, killed with SIGKILL (the process
 * group: the server and its DynamoDB Local, as a power cut would) while ticket events flow, then
 * started again on the same data, twice. Every ticket that exists at the end must have reached
 * both subscribed endpoints as exactly one delivery (one delivery id per ticket and endpoint):
 * nothing lost at a kill, nothing delivered twice as two deliveries. Webhook receivers dedupe by
 * delivery id; a POST repeated under the same id (a kill between the receiver's answer and its
 * record) is the at-least-once transport, counted apart.
 */
const dataDir = newDataDir('wm-crash-');
const receiver = new Receiver();
const keys = fixedKeys();
const start = () => startSelfHosted(dataDir, keys, { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_DELAYS_SECONDS: '1,1,1' });

let server: SelfHosted | undefined;
let slug: string;
let session: string;
let boardId: string;
const endpoints: { id: string; path: string }[] = [];
const call = (method: string, path: string, body?: unknown, token?: string) => caller(() => server!, slug, () => session)(method, path, body, token);

/** Creates tickets one after another (two at a time) until told to stop; a request cut by the kill is simply lost to the caller. */
function createTickets(count: number, label: string): { done: Promise<void>; created: () => number } {
  let created = 0;
  const one = async (index: number) => {
    try {
      const answer = await call('POST', `/api/v1/boards/${boardId}/tickets`, { title: `${label} ${index}` });
      if (answer.status === 201) created += 1;
    } catch {
      // The server was killed under this request.
    }
  };
  const done = (async () => {
    for (let index = 0; index < count; index += 2) await Promise.all([one(index), one(index + 1)]);
  })();
  return { done, created: () => created };
}

beforeAll(async () => {
  await receiver.start();
  server = await start();
  slug = `crash-${randomBytes(3).toString('hex')}`;
  const signup = await fetch(`${server.baseUrl}/api/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ organizationName: 'Crash', slug, name: 'Ada', email: `ada@${slug}.test`, password: 'correct horse battery' }),
  });
  session = ((await signup.json()) as { token: string }).token;
  expect((await call('PATCH', `/api/v1/platform/organizations/${slug}`, { plan: 'PRO' }, keys.PLATFORM_ADMIN_TOKEN)).status).toBe(200);
  const board = await call('POST', '/api/v1/boards', { name: 'Crash' });
  boardId = board.body.id;
  for (const path of ['/one', '/two']) {
    const endpoint = await call('POST', '/api/v1/webhook-endpoints', { name: path, url: `${receiver.url}${path}`, events: ['ticket.created'] });
    expect(endpoint.status).toBe(201);
    endpoints.push({ id: endpoint.body.id, path });
  }
}, 120_000);

afterAll(async () => {
  if (server) await killSelfHosted(server);
  await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a crash of npm start with DATA_DIR', () => {
  it('delivers every ticket.created to every endpoint exactly once across two kills in the middle of a stream of events', async () => {
    for (const round of [1, 2]) {
      const stream = createTickets(400, `Round ${round}`);
      // Kill once events are flowing: tickets written, some delivered, more on their way.
      const deadline = Date.now() + 30_000;
      while (stream.created() < 16 || receiver.requests.length < 8) {
        if (Date.now() > deadline) throw new Error(`no events flowed in round ${round}:\n${server!.output()}`);
        await new Promise((done) => setTimeout(done, 20));
      }
      await killSelfHosted(server!);
      await stream.done;
      server = await start();
    }
    // After the last restart, events keep flowing as before.
    await createTickets(10, 'After').done;

    const ticketIds = new Set<string>();
    for (let page = 1; ; page += 1) {
      const list = await call('GET', `/api/v1/boards/${boardId}/tickets?limit=100&page=${page}&includePlanning=true`);
      expect(list.status).toBe(200);
      for (const ticket of list.body.data as { id: string }[]) ticketIds.add(ticket.id);
      if (page >= list.body.totalPages) break;
    }
    expect(ticketIds.size).toBeGreaterThan(40);

    const deliveriesOf = (path: string) => {
      const byTicket = new Map<string, Set<string>>();
      for (const request of receiver.on(path)) {
        const ticketId = (JSON.parse(request.body) as { data: { ticketId: string } }).data.ticketId;
        byTicket.set(ticketId, (byTicket.get(ticketId) ?? new Set()).add(String(request.headers['x-service-delivery'])));
      }
      return byTicket;
    };
    const deadline = Date.now() + 60_000;
    while (endpoints.some(({ path }) => deliveriesOf(path).size < ticketIds.size) && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 200));
    }
    for (const { path } of endpoints) {
      const delivered = deliveriesOf(path);
      const missing = [...ticketIds].filter((ticketId) => !delivered.has(ticketId));
      expect(missing, `${path}: tickets never delivered`).toEqual([]);
      expect([...delivered.keys()].filter((ticketId) => !ticketIds.has(ticketId)), `${path}: deliveries of unknown tickets`).toEqual([]);
      const twice = [...delivered].filter(([, ids]) => ids.size > 1).map(([ticketId]) => ticketId);
      expect(twice, `${path}: tickets delivered as two deliveries`).toEqual([]);
    }
  }, 240_000);
});
