import { beforeAll, describe, expect, it } from 'vitest';
import type { TestOrg } from '../support/api.js';
import { createBoard, createOrg, createTicket } from '../support/factories.js';
import { waitUntil } from '../support/wait.js';
import { allPages, answered } from '../support/lists.js';
import { db } from '../../lib/db/service.js';
import { systemClock } from '../../lib/core/clock.js';
import { jobRecord } from '../../lib/events/index.js';
import { RECATEGORIZE_JOB, type Recategorizing } from '../../lib/statuses/index.js';
import { RECATEGORIZED_PER_STEP, recategorizeStep } from '../../lib/tickets/lists/recategorize.js';
import { sortInColumn } from '../../lib/tickets/lists/filters.js';
import type { StatusCategory, TicketItem } from '../../lib/db/entities/index.js';
import { seedBoard } from '../bench/seed.js';
import { useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * A status moved to another category (issue 30, item 4): its tickets carry the category in
 * their board index key, and the events function moves them in steps of RECATEGORIZED_PER_STEP
 * per board. The request answers at once; meanwhile a list of the status's column reads it
 * under every category, so it misses none of them; at the end every ticket has the new
 * category, with what the category decides kept exact (the milestone's completed count, the
 * readiness of the tickets it blocked), and the status's mark is gone. A step run twice (a crash
 * after its writes) redoes nothing, and a second change of category supersedes the first's job.
 */
let org: TestOrg;
const boards: { id: string; prefix: string }[] = [];
/** The first board takes more than a step; the second a few tickets. */
const ON_BOARDS = [RECATEGORIZED_PER_STEP + 20, 5];

const createStatus = async (name: string, category: StatusCategory) =>
  (await answered(org.call('POST', '/api/v1/statuses', { body: { name, color: '#336699', category } }), 201)).id as string;
const statusItem = async (statusId: string) => (await db().entities.status.get({ orgId: org.orgId, statusId }).go({ consistent: true })).data;
const stored = async (statusId: string) =>
  (await Promise.all(boards.map((board) => db().entities.ticket.query.byBoard({ orgId: org.orgId, boardId: board.id }).go({ pages: 'all' }))))
    .flatMap((part) => part.data as TicketItem[])
    .filter((ticket) => ticket.statusId === statusId && !ticket.isDeleted);
const categoriesOf = (tickets: TicketItem[]) => [...new Set(tickets.map((ticket) => ticket.statusCategory))].sort();

async function seedStatus(statusId: string) {
  const type = (await answered(org.call('GET', '/api/v1/ticket-types'))).data[0].id as string;
  const vocabulary = { activeStatusIds: [statusId], typeId: type, assignee: { id: org.adminId, name: 'Ada Admin' }, createdById: org.adminId };
  for (const [index, count] of ON_BOARDS.entries()) {
    const seeded = boards[index]!;
    const from = (await db().entities.board.get({ orgId: org.orgId, boardId: seeded.id }).go({ consistent: true })).data?.ticketCounter ?? 0;
    await seedBoard({ orgId: org.orgId, boardId: seeded.id, prefix: seeded.prefix }, vocabulary, count, from + 1, { searchIndex: false });
  }
}

/** The status's column on the first board, every page, against its stored tickets in column order. */
async function expectColumnComplete(statusId: string) {
  const listed = await allPages(org, `/api/v1/boards/${boards[0]!.id}/tickets?statusId=${statusId}&includeArchived=true`, 50);
  const truth = sortInColumn((await stored(statusId)).filter((ticket) => ticket.boardId === boards[0]!.id)).map((ticket) => ticket.ticketId);
  expect(listed.total).toBe(truth.length);
  expect(listed.ids).toEqual(truth);
}

beforeAll(async () => {
  org = await createOrg({ plan: 'PRO' });
  for (const prefix of ['RCA', 'RCB']) boards.push({ id: (await createBoard(org, { prefix })).id, prefix });
  expect((await org.call('PATCH', `/api/v1/boards/${boards[0]!.id}`, { body: { features: { milestonesAndReleases: true } } })).status).toBe(200);
}, 60_000);

describe('a status moved to another category', () => {
  it('answers at once, lists the whole column meanwhile, and moves every ticket in the background with what the category decides', async () => {
    const review = await createStatus('Review', 'ACTIVE');
    await seedStatus(review);
    const milestone = (await answered(org.call('POST', `/api/v1/boards/${boards[0]!.id}/milestones`, { body: { name: 'Cut', dueDate: '2027-01-31' } }), 201)).id as string;
    const inMilestone = await createTicket(org, boards[0]!.id, { title: 'In the milestone', statusId: review, milestoneId: milestone });
    const blocker = await createTicket(org, boards[1]!.id, { title: 'Blocker', statusId: review });
    const inProgress = (await answered(org.call('GET', '/api/v1/statuses'))).data.find((status: { key: string }) => status.key === 'IN_PROGRESS').id;
    const blocked = await createTicket(org, boards[0]!.id, { title: 'Blocked', statusId: inProgress });
    await answered(org.call('PUT', `/api/v1/boards/${boards[0]!.id}/tickets/${blocked.id}/dependencies/${blocker.id}`));
    const ticketPath = (ticket: { id: string }, board = 0) => `/api/v1/boards/${boards[board]!.id}/tickets/${ticket.id}`;
    expect((await answered(org.call('GET', ticketPath(blocked)))).data.isReady).toBe(false);
    const total = ON_BOARDS[0]! + ON_BOARDS[1]! + 2;
    expect((await stored(review)).length).toBe(total);

    const started = Date.now();
    const changed = await answered(org.call('PATCH', `/api/v1/statuses/${review}`, { body: { category: 'FINAL' } }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(changed).toMatchObject({ id: review, category: 'FINAL', isFinal: true });
    // At once: the status shows its new category, its column lists every ticket, the default list none.
    expect((await answered(org.call('GET', ticketPath(inMilestone)))).data.status.category).toBe('FINAL');
    await expectColumnComplete(review);
    const activeList = await allPages(org, `/api/v1/boards/${boards[0]!.id}/tickets?includeArchived=false`, 100);
    expect(activeList.ids).not.toContain(inMilestone.id);

    // The job moves them all, then removes the mark.
    expect(await waitUntil(() => statusItem(review), (item) => item?.recategorizing === undefined, 90_000)).toMatchObject({ category: 'FINAL' });
    const moved = await stored(review);
    expect(moved.length).toBe(total);
    expect(categoriesOf(moved)).toEqual(['FINAL']);
    await expectColumnComplete(review);
    expect((await answered(org.call('GET', `/api/v1/boards/${boards[0]!.id}/milestones/${milestone}`))).progress).toMatchObject({ total: 1, completed: 1 });
    // The blocker is done: the ticket it blocked becomes ready (the events function carries it).
    expect((await waitUntil(async () => (await answered(org.call('GET', ticketPath(blocked)))).data, (shown) => shown.openBlockerCount === 0, 30_000)).isReady).toBe(true);
    // No webhook-visible change: the moves emit no ticket.updated.
    const updated = await db().entities.event.query.bySubject({ orgId: org.orgId, subjectId: inMilestone.id }).go({ pages: 'all' });
    expect(updated.data.filter((event) => event.type === 'ticket.updated')).toEqual([]);
  }, 180_000);

  it('redoes nothing when a step runs twice, and a second change of category supersedes the first', async () => {
    const triage = await createStatus('Triage', 'ACTIVE');
    await seedStatus(triage);
    // The change as the request makes it, without its job record: the test runs the job's first step itself.
    const first: Recategorizing = { statusId: triage, jobId: 'job_TESTFIRST', actorId: org.adminId, actorName: 'Ada Admin' };
    await db().entities.status.patch({ orgId: org.orgId, statusId: triage }).set({ category: 'PLANNING', recategorizing: first.jobId }).go();
    const event = { ...jobRecord(RECATEGORIZE_JOB, org.orgId, systemClock, { subjectId: triage, data: first }), data: first };
    await recategorizeStep(event, systemClock);
    const afterOne = await stored(triage);
    // At least the step's tickets (the events function may already run the continuation the step recorded).
    expect(afterOne.filter((ticket) => ticket.statusCategory === 'PLANNING').length).toBeGreaterThanOrEqual(RECATEGORIZED_PER_STEP);
    const versions = new Map(afterOne.map((ticket) => [ticket.ticketId, ticket.version]));
    // A crash after the step's writes: the step runs again. It finds the moved tickets gone from
    // the range it reads and moves the next ones; the continuation it records is the same one.
    await recategorizeStep(event, systemClock);
    const afterTwo = await stored(triage);
    for (const ticket of afterOne.filter((one) => one.statusCategory === 'PLANNING')) expect(afterTwo.find((two) => two.ticketId === ticket.ticketId)?.version).toBe(versions.get(ticket.ticketId));
    await expectColumnComplete(triage);

    // A second change before the first job ends (through the API): its job supersedes the first.
    await answered(org.call('PATCH', `/api/v1/statuses/${triage}`, { body: { category: 'FINAL' } }));
    const done = await waitUntil(() => statusItem(triage), (item) => item?.recategorizing === undefined, 90_000);
    expect(done).toMatchObject({ category: 'FINAL' });
    expect(categoriesOf(await stored(triage))).toEqual(['FINAL']);
    await expectColumnComplete(triage);
    // The first job's chain (the continuation its step recorded, run by the events function) stopped without writing.
    const counts = await db().entities.columnCount.query.byBoard({ orgId: org.orgId, boardId: boards[0]!.id }).go({ pages: 'all' });
    expect(counts.data.filter((count) => count.statusId === triage).reduce((sum, count) => sum + count.total, 0)).toBe(ON_BOARDS[0]);
  }, 180_000);
});
