import { beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { setPlan } from '../support/api.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createTicket } from '../support/factories.js';
import { db } from '../../lib/db/service.js';
import { documentDb } from '../../lib/db/client.js';
import { config } from '../../lib/core/config.js';
import { backfillReadiness } from '../../infra/ops/backfill-readiness.js';
import { dispatchedEventsOf } from '../support/events.js';

/**
 * The upgrade job of the fleet release: tickets written before it (no open-subticket count, no
 * ready-queue keys) are counted and written back so the ready queue holds them.
 */
let s: BoardSetup;

/** Makes a ticket look as a ticket written before the release does: none of the readiness attributes. */
async function asBeforeTheRelease(ticketId: string): Promise<void> {
  const { Key } = db().entities.ticket.get({ ticketId }).params() as { Key: Record<string, unknown> };
  await documentDb().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key,
      UpdateExpression: 'REMOVE openSubticketCount, openBlockerCount, readyBoard, readyRank, gsi7pk, gsi7sk',
    }),
  );
}

const ready = async () => (await s.org.call('GET', `/api/v1/issues?ready=true&boardId=${s.boardId}`)).body as { data: { id: string }[]; total: number };
const readyIds = async () => (await ready()).data.map((ticket) => ticket.id);

/** The board's column counts as before the release: no ready count. */
async function countsBeforeTheRelease(): Promise<void> {
  const { data } = await db().entities.columnCount.query.byBoard({ orgId: s.org.orgId, boardId: s.boardId }).go({ pages: 'all' });
  for (const count of data) await db().entities.columnCount.patch(count).remove(['queued']).go();
}

beforeAll(async () => {
  s = await boardSetup('Before the release', 'BTR');
  await setPlan(s.org.slug, 'PRO');
});

describe('npm run backfill-readiness', () => {
  it('puts old tickets in the ready queue, and keeps a parent with an open subticket out', async () => {
    const plain = await createTicket(s.org, s.boardId, { title: 'Old work', statusId: s.statuses.IN_PROGRESS.id });
    const parent = await createTicket(s.org, s.boardId, { title: 'Old epic', statusId: s.statuses.IN_PROGRESS.id });
    const sub = await s.org.call('POST', `/api/v1/boards/${s.boardId}/tickets/${parent.id}/subtickets`, { body: { title: 'Old part' } });
    expect(sub.status).toBe(201);
    // The subticket's readiness job recounts its parent: let it land before the tickets are made old, or it completes the parent itself.
    await dispatchedEventsOf(s.org.orgId, `readiness:${sub.body.data.id}`, 1, 60_000);
    for (const ticketId of [plain.id, parent.id, sub.body.data.id]) await asBeforeTheRelease(ticketId);
    await countsBeforeTheRelease();
    expect(await ready()).toMatchObject({ data: [], total: 0 });

    const first = await backfillReadiness({ orgId: s.org.orgId });
    expect(first.updated).toBeGreaterThanOrEqual(3);
    expect(await readyIds()).toEqual([plain.id]);
    // Counted in its column's ready count as it entered the queue: the exact total without a full read.
    expect((await ready()).total).toBe(1);
    const stored = (await db().entities.ticket.get({ ticketId: parent.id }).go({ consistent: true })).data!;
    expect(stored.openSubticketCount).toBe(1);
    // Again: nothing left to do for these tickets.
    const again = await backfillReadiness({ orgId: s.org.orgId });
    expect(again.updated).toBe(0);
    // The job Scans the whole shared table, twice here: about 20 s late in a full run.
  }, 120_000);
});
