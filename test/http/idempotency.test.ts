import { beforeAll, describe, expect, it } from 'vitest';
import { createMember, createToken, type TestOrg, useInProcess } from '../support/api.js';
import { createBoard, createOrg } from '../support/factories.js';
import { db } from '../../lib/db/service.js';
import { holdIdempotencyKey } from '../support/idempotency.js';
import { sha256Hex } from '../../lib/core/ids.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/**
 * The `Idempotency-Key` header over real HTTP: a retried POST does its work once and gets the
 * first answer again; a key is its sender's, for one request, and an error keeps nothing.
 */
let org: TestOrg;
let board: { id: string };
let n = 0;
const key = () => `key-${Date.now().toString(36)}-${n++}`;
const createTicket = (idempotencyKey: string | undefined, body: Record<string, unknown>, token?: string) =>
  org.call('POST', `/api/v1/boards/${board.id}/tickets`, { body, ...(token ? { token } : {}), headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });
const ticketsTitled = async (title: string) =>
  ((await org.call('GET', `/api/v1/boards/${board.id}/tickets?includePlanning=true&limit=100`)).body.data as { title: string }[]).filter((ticket) => ticket.title === title);

beforeAll(async () => {
  org = await createOrg();
  board = await createBoard(org);
});

describe('Idempotency-Key', () => {
  it('does the work once: a retry with the same key and body gets the first answer again, marked Idempotent-Replayed', async () => {
    const k = key();
    const first = await createTicket(k, { title: 'Once only' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await createTicket(k, { title: 'Once only' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await ticketsTitled('Once only')).toHaveLength(1);
    // A quoted Structured Fields string is the same key.
    expect((await createTicket(`"${k}"`, { title: 'Once only' })).headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses the same key with another body: 422 IDEMPOTENCY_KEY_REUSED, and nothing is created', async () => {
    const k = key();
    expect((await createTicket(k, { title: 'First body' })).status).toBe(201);
    const reused = await createTicket(k, { title: 'Second body' });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await ticketsTitled('Second body')).toHaveLength(0);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first request still runs', async () => {
    const k = key();
    // A first request holding the key right now (as one still running would).
    await holdIdempotencyKey(org.orgId, org.adminId, k, `POST /api/v1/boards/${board.id}/tickets?\n${JSON.stringify({ title: 'Running' })}`);
    const running = await createTicket(k, { title: 'Running' });
    expect(running.status).toBe(409);
    expect(running.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(running.headers.get('retry-after')).toBe('1');
    expect(await ticketsTitled('Running')).toHaveLength(0);
  });

  it('creates exactly one ticket from concurrent requests with one key; the others wait or get the same answer', async () => {
    const k = key();
    const answers = await Promise.all(Array.from({ length: 6 }, () => createTicket(k, { title: 'Raced' })));
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((answer) => answer.body.data.id)).size).toBe(1);
    for (const answer of answers.filter((candidate) => candidate.status !== 201)) expect(answer.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await ticketsTitled('Raced')).toHaveLength(1);
  });

  it('keeps no error answer: after a refused first request, the same key runs anew', async () => {
    const k = key();
    expect((await createTicket(k, { title: '' })).status).toBe(400);
    const retry = await createTicket(k, { title: 'Fixed' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('gives each actor its own keys, and the same key with another token of the same actor the same answer', async () => {
    const k = key();
    const mine = await createTicket(k, { title: 'Per actor' });
    const member = await createMember(org, { role: 'ADMIN' });
    const theirs = await createTicket(k, { title: 'Per actor' }, member.token);
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    const pat = await createToken(org, org.adminToken, { name: 'other token of the admin' });
    const sameActor = await createTicket(k, { title: 'Per actor' }, pat.token);
    expect(sameActor.headers.get('idempotent-replayed')).toBe('true');
    expect(sameActor.body.data.id).toBe(mine.body.data.id);
  });

  it('treats a key past its 24 hours as new', async () => {
    const k = key();
    const first = await createTicket(k, { title: 'Expired key' });
    await db()
      .entities.idempotencyRecord.patch({ orgId: org.orgId, actorId: org.adminId, keyHash: sha256Hex(k) })
      .set({ ttl: Math.floor(Date.now() / 1000) - 1 })
      .go();
    const later = await createTicket(k, { title: 'Expired key' });
    expect(later.status).toBe(201);
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });

  it('keeps a one-time secret only sealed: a retried token mint gives the same token, which the table does not hold', async () => {
    const k = key();
    const mint = () => org.call('POST', '/api/v1/users/me/tokens', { body: { name: 'ci' }, headers: { 'idempotency-key': k } });
    const first = await mint();
    expect(first.status).toBe(201);
    const again = await mint();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.token).toBe(first.body.token);
    const record = (await db().entities.idempotencyRecord.get({ orgId: org.orgId, actorId: org.adminId, keyHash: sha256Hex(k) }).go()).data!;
    expect(record.status).toBe('COMPLETED');
    expect(JSON.stringify(record)).not.toContain(first.body.token);
    expect(JSON.stringify(record)).not.toContain(k);
  });

  it('refuses a key that is empty or longer than 255 characters, before any work', async () => {
    for (const bad of ['', '""', 'k'.repeat(256)]) {
      const answer = await createTicket(bad, { title: 'Bad key' });
      expect(answer.status, JSON.stringify(bad)).toBe(400);
      expect(answer.body.error.details.issues[0].path).toBe('Idempotency-Key');
    }
    expect((await createTicket('k'.repeat(255), { title: 'Longest key' })).status).toBe(201);
    expect(await ticketsTitled('Bad key')).toHaveLength(0);
  });
});
