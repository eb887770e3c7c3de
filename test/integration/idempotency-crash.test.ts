import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedKeys, killSelfHosted, newDataDir, startSelfHosted, type SelfHosted } from '../support/self-hosted.js';

/**
 * `npm start` with DATA_DIR killed (SIGKILL to its process group) while keyed ticket creates run
 * twelve at a time, twice, then every key sent again once its reservation has lapsed (2 s here,
 * IDEMPOTENCY_RESERVATION_SECONDS; 30 s by default). Whatever the kill cut (before the work,
 * between the work's commit and the answer, after the answer), no key makes two tickets: a repeat
 * is the kept answer, a fresh create when the first never committed, or 409
 * IDEMPOTENCY_KEY_COMMITTED naming the ticket the first made.
 */
const dataDir = newDataDir('wm-idem-');
const keys = fixedKeys();
const RESERVATION_SECONDS = 2;
const start = () => startSelfHosted(dataDir, keys, { IDEMPOTENCY_RESERVATION_SECONDS: String(RESERVATION_SECONDS) });

let server: SelfHosted | undefined;
let slug: string;
let session: string;
let boardId: string;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${server!.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${session}`, 'x-organization': slug, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

const keyedCreate = (key: string) => call('POST', `/api/v1/boards/${boardId}/tickets`, { title: `Keyed ${key}` }, { 'idempotency-key': key });

/** Every ticket of the board, by title. */
async function titles(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let page = 1; ; page += 1) {
    const listed = await call('GET', `/api/v1/boards/${boardId}/tickets?limit=100&includePlanning=true&page=${page}`);
    expect(listed.status).toBe(200);
    for (const ticket of listed.body.data as { title: string }[]) counts.set(ticket.title, (counts.get(ticket.title) ?? 0) + 1);
    if (page >= listed.body.totalPages) return counts;
  }
}

beforeAll(async () => {
  server = await start();
  slug = `idem-${randomBytes(3).toString('hex')}`;
  const signup = await fetch(`${server.baseUrl}/api/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ organizationName: 'Idem', slug, name: 'Ada', email: `ada@${slug}.test`, password: 'correct horse battery' }),
  });
  session = ((await signup.json()) as { token: string }).token;
  boardId = (await call('POST', '/api/v1/boards', { name: 'Idem' })).body.id;
}, 120_000);

afterAll(async () => {
  if (server) await killSelfHosted(server);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('an Idempotency-Key across a crash', () => {
  it('refuses to create a second ticket for any key after kills in the middle of keyed creates', async () => {
    const sent: string[] = [];
    const outcomes = { replayed: 0, committed: 0, fresh: 0 };
    for (const round of [1, 2]) {
      let answered = 0;
      let stop = false;
      const worker = async (lane: number) => {
        for (let index = 0; !stop; index += 1) {
          const key = `r${round}-l${lane}-${index}`;
          sent.push(key);
          try {
            if ((await keyedCreate(key)).status === 201) answered += 1;
          } catch {
            return; // the server was killed under this request
          }
        }
      };
      const lanes = Array.from({ length: 12 }, (_, lane) => worker(lane));
      const deadline = Date.now() + 60_000;
      while (answered < 40) {
        if (Date.now() > deadline) throw new Error(`creates did not flow in round ${round}:\n${server!.output()}`);
        await new Promise((done) => setTimeout(done, 10));
      }
      await killSelfHosted(server!);
      stop = true;
      await Promise.all(lanes);
      server = await start();
      // Past every reservation the kill left behind: a key whose work never committed is free again.
      await new Promise((done) => setTimeout(done, RESERVATION_SECONDS * 1000 + 500));
      for (const key of sent.filter((candidate) => candidate.startsWith(`r${round}-`))) {
        const repeat = await keyedCreate(key);
        if (repeat.status === 201 && repeat.headers.get('idempotent-replayed') === 'true') outcomes.replayed += 1;
        else if (repeat.status === 201) outcomes.fresh += 1;
        else {
          expect(repeat.status, JSON.stringify(repeat.body)).toBe(409);
          expect(repeat.body.error.code).toBe('IDEMPOTENCY_KEY_COMMITTED');
          const created = (repeat.body.error.details.created as { type: string; id: string }[]).find((ref) => ref.type === 'ticket');
          expect(created, JSON.stringify(repeat.body.error.details)).toBeDefined();
          const ticket = await call('GET', `/api/v1/boards/${boardId}/tickets/${created!.id}`);
          expect(ticket.body.data.title).toBe(`Keyed ${key}`);
          outcomes.committed += 1;
        }
      }
    }
    const counts = await titles();
    const twice = [...counts].filter(([, count]) => count > 1);
    expect(twice).toEqual([]);
    // Every key sent made exactly one ticket in the end.
    for (const key of sent) expect(counts.get(`Keyed ${key}`), key).toBe(1);
    expect(outcomes.replayed).toBeGreaterThan(0);
    console.info(`keyed creates across two kills: ${sent.length} keys; repeats replayed ${outcomes.replayed}, committed before the kill without an answer ${outcomes.committed}, never committed ${outcomes.fresh}`);
  }, 240_000);
});
