import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/core/ids.js';
import type { TicketItem } from '../../lib/db/entities/index.js';
import { caller, entitiesOf, fixedKeys, killSelfHosted, newDataDir, startSelfHosted, type SelfHosted } from '../support/self-hosted.js';

/**
 * Deleting a milestone of 800 tickets on `npm start` with DATA_DIR: the request answers at
 * once, the events function clears the tickets in steps, and the server is killed (SIGKILL, the
 * whole process group) half-way through. Started again on the same data, the job resumes where
 * it stood, and at the end every ticket has left, exactly once (one write each): the
 * milestone's counts are 0 and no live ticket names it. The tickets are written straight into the table in
 * batches, shaped as the ticket write path writes them (as `npm run bench` seeds its boards).
 * The job clears 200 tickets a step (CLEARED_PER_STEP), so 800 make four steps, with the
 * kill during or after the second: the request's answer does not depend on the count (3 round
 * trips), and a resumed job is the same whether six or twenty steps remain. On DynamoDB Local
 * the job clears about 50 tickets a second (each a transaction and an event).
 */
const TICKETS = 800;
const dataDir = newDataDir('wm-bulk-');
const keys = fixedKeys();
let server: SelfHosted;
let slug: string;
let session: string;
const call = (method: string, path: string, body?: unknown, token?: string) => caller(() => server, slug, () => session)(method, path, body, token);

let orgId: string;
let boardId: string;
let milestoneId: string;

beforeAll(async () => {
  server = await startSelfHosted(dataDir, keys);
  slug = `bulk-${randomBytes(3).toString('hex')}`;
  const signup = await fetch(`${server.baseUrl}/api/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ organizationName: 'Bulk', slug, name: 'Ada', email: `ada@${slug}.test`, password: 'correct horse battery' }),
  });
  const signedUp = (await signup.json()) as { token: string; organization: { id: string }; user: { id: string } };
  session = signedUp.token;
  orgId = signedUp.organization.id;
  const board = await call('POST', '/api/v1/boards', { name: 'Bulk', prefix: 'BLK' });
  boardId = board.body.id;
  expect((await call('PATCH', `/api/v1/boards/${boardId}`, { features: { milestonesAndReleases: true } })).status).toBe(200);
  const milestone = await call('POST', `/api/v1/boards/${boardId}/milestones`, { name: 'Big', dueDate: '2027-06-30' });
  expect(milestone.status).toBe(201);
  milestoneId = milestone.body.id;
  // The tickets a first one shows the shape of, written in batches with the counts the write path keeps.
  const first = await call('POST', `/api/v1/boards/${boardId}/tickets`, { title: 'Template' });
  expect(first.status).toBe(201);
  expect((await call('DELETE', `/api/v1/boards/${boardId}/tickets/${first.body.data.id}`)).status).toBe(204);
  const table = entitiesOf(server);
  try {
    const template = (await table.ticket.get({ ticketId: first.body.data.id }).go()).data!;
    const tickets: TicketItem[] = Array.from({ length: TICKETS }, (_, index) => {
      const number = index + 2;
      return { ...template, ticketId: newId('tkt'), number, displayId: `BLK-${number}`, title: `Bulk ${number}`, milestoneId, isDeleted: false, position: template.position + number, version: 1 };
    });
    for (let start = 0; start < tickets.length; start += 1_000) {
      const chunk = tickets.slice(start, start + 1_000);
      const [written, keyed] = await Promise.all([
        table.ticket.put(chunk).go({ concurrency: 4 }),
        table.ticketKey.put(chunk.map((ticket) => ({ orgId, displayId: ticket.displayId, ticketId: ticket.ticketId }))).go({ concurrency: 2 }),
      ]);
      expect(written.unprocessed.length + keyed.unprocessed.length).toBe(0);
    }
    await table.columnCount.update({ orgId, boardId, statusId: template.statusId, shard: '0' }).add({ total: TICKETS, archived: 0 }).go();
    await table.milestone.update({ orgId, boardId, milestoneId }).add({ ticketCount: TICKETS }).go();
    await table.board.patch({ orgId, boardId }).set({ ticketCounter: TICKETS + 1 }).go();
  } finally {
    table.destroy();
  }
  expect((await call('GET', `/api/v1/boards/${boardId}/milestones/${milestoneId}`)).body).toMatchObject({ progress: { total: TICKETS, completed: 0 } });
}, 120_000);

afterAll(async () => {
  if (server) await killSelfHosted(server);
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * How many tickets still name the milestone (its index), counted up to `upTo`, and the
 * milestone item. Only for the end: a poll that counted thousands every few hundred
 * milliseconds took a third of the file's CPU from the job it watches (`stillIn` is the cheap probe).
 */
async function progress(upTo: number): Promise<{ left: number; ticketCount: number; completedCount: number }> {
  const table = entitiesOf(server);
  try {
    const [left, milestone] = await Promise.all([
      table.ticket.query.byMilestone({ orgId, milestoneKey: milestoneId }).go({ count: upTo, attributes: ['ticketId'] }),
      table.milestone.get({ orgId, boardId, milestoneId }).go({ consistent: true }),
    ]);
    return { left: left.data.length, ticketCount: milestone.data!.ticketCount, completedCount: milestone.data!.completedCount };
  } finally {
    table.destroy();
  }
}

/** The milestone's tickets in the order of its index (the order the job takes them in). */
async function inMilestoneOrder(): Promise<string[]> {
  const table = entitiesOf(server);
  try {
    return (await table.ticket.query.byMilestone({ orgId, milestoneKey: milestoneId }).go({ pages: 'all', attributes: ['ticketId'] })).data.map((ticket) => ticket.ticketId);
  } finally {
    table.destroy();
  }
}

/** Whether a ticket still names the milestone (one GetItem). */
async function stillIn(ticketId: string): Promise<boolean> {
  const table = entitiesOf(server);
  try {
    return (await table.ticket.get({ ticketId }).go({ consistent: true, attributes: ['milestoneId'] })).data?.milestoneId === milestoneId;
  } finally {
    table.destroy();
  }
}

describe('deleting a milestone of 800 tickets', () => {
  it('answers at once and clears every ticket exactly once in the background, through a kill in the middle', async () => {
    // The job walks the milestone's index in order: once the ticket 30% along it has left, about
    // 30% have; while the last one has not, the job is not over.
    const order = await inMilestoneOrder();
    const [probe, last] = [order[Math.floor(TICKETS * 0.3)]!, order.at(-1)!];
    const started = Date.now();
    expect((await call('DELETE', `/api/v1/boards/${boardId}/milestones/${milestoneId}`)).status).toBe(204);
    const answeredMs = Date.now() - started;
    expect(answeredMs).toBeLessThan(5_000);
    expect((await call('GET', `/api/v1/boards/${boardId}/milestones/${milestoneId}`)).status).toBe(404);
    const page = await call('GET', `/api/v1/boards/${boardId}/tickets?includePlanning=true&milestoneId=${milestoneId}`);
    expect(page.body.total).toBe(0);

    // Kill once the job is well under way, neither before it began nor after it ended.
    const deadline = Date.now() + 180_000;
    while (await stillIn(probe)) {
      if (Date.now() > deadline) throw new Error(`the job did not get going: ${JSON.stringify(await progress(TICKETS))}\n${server.output()}`);
      await new Promise((done) => setTimeout(done, 250));
    }
    expect(await stillIn(last)).toBe(true);
    await killSelfHosted(server);

    server = await startSelfHosted(dataDir, keys);
    const resumed = Date.now() + 300_000;
    let seen = await progress(1);
    while (seen.left > 0 || seen.ticketCount !== 0) {
      if (Date.now() > resumed) throw new Error(`the job did not finish after the restart: ${JSON.stringify(seen)}\n${server.output()}`);
      await new Promise((done) => setTimeout(done, 500));
      seen = await progress(1);
    }
    expect(seen).toEqual({ left: 0, ticketCount: 0, completedCount: 0 });
    // Every ticket is live, out of the milestone, and listed.
    const listed = await call('GET', `/api/v1/boards/${boardId}/tickets?includePlanning=true&limit=1`);
    expect(listed, JSON.stringify(listed.body)).toMatchObject({ status: 200, body: { total: TICKETS } });
    const table = entitiesOf(server);
    try {
      const stored = await table.ticket.query.byBoard({ orgId, boardId }).go({ pages: 'all', attributes: ['ticketId', 'milestoneId', 'isDeleted', 'version'] });
      const live = stored.data.filter((ticket) => !ticket.isDeleted);
      expect(live).toHaveLength(TICKETS);
      expect(live.filter((ticket) => ticket.milestoneId !== undefined)).toEqual([]);
      // Written once each: the step replayed after the kill left alone what it had already done.
      expect(live.filter((ticket) => ticket.version !== 2)).toEqual([]);
    } finally {
      table.destroy();
    }
    // The name is free again.
    expect((await call('POST', `/api/v1/boards/${boardId}/milestones`, { name: 'Big', dueDate: '2027-06-30' })).status).toBe(201);
  }, 540_000);
});
