import { beforeAll, describe, expect, it } from 'vitest';
import { signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { createTicket } from '../support/factories.js';
import { waitUntil } from '../support/wait.js';
import { db } from '../../lib/db/service.js';
import { allPages, answered } from '../support/lists.js';
import { systemClock, type Clock } from '../../lib/core/clock.js';
import { runSweep } from '../../lib/sweeper/index.js';
import { indexTicketSearch, matchesSearch, termEntriesOf } from '../../lib/tickets/search/index.js';
import { fold, wordsOf } from '../../lib/search/index.js';
import { seedBoard } from '../bench/seed.js';
import { countUpdate } from '../../lib/tickets/search/index.js';
import { parseTermCountName, termCountName, type TicketTermItem } from '../../lib/db/entities/index.js';
import { queryProjected, type QueryParams } from '../../lib/db/projected.js';
import { documentDb } from '../../lib/db/client.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Ticket search from the search index (lib/tickets/search) against the full read applying the
 * same rule: every page and total of board and cross-board searches must be identical, both
 * once the events function has indexed every write and right after writes it has not indexed
 * yet (the pending tickets the reader judges itself). The full read is what a search gets with a
 * filter the index does not serve: `FULL_READ` adds `needsReassignment=false`, which changes no
 * answer here (no ticket needs reassignment) and makes the list read the boards.
 */
const clockAt = (date: Date): Clock => ({ now: () => date });
let org: TestOrg;
let boards: string[];
let statuses: Record<string, { id: string }>;
const tickets: { id: string; boardId: string }[] = [];


const FULL_READ = '&needsReassignment=false';
const pendingOf = async () => (await db().entities.searchPending.query.byOrganization({ orgId: org.orgId }).go()).data;
const drained = async () => expect(await waitUntil(pendingOf, (pending) => pending.length === 0, 60_000)).toEqual([]);

const pagesOf = (path: string) => allPages(org, path, 3);

/**
 * The term counts of a board against its counted entries, summed by (term, `shared`, status,
 * archived flag): what the counted writes keep equal at every moment, however runs die or repeat.
 */
async function expectCountsToMatchEntries(orgId: string, boardId: string): Promise<number> {
  const entries = (await db().entities.ticketTerm.query.byTerm({ orgId, boardId }).go({ pages: 'all', consistent: true })).data as TicketTermItem[];
  const fromEntries = new Map<string, number>();
  for (const entry of entries) {
    if (!entry.counted || entry.shared === undefined) continue;
    const key = `${entry.term} ${termCountName(entry.shared, entry.statusId, entry.isArchived === true)}`;
    fromEntries.set(key, (fromEntries.get(key) ?? 0) + 1);
  }
  const { items } = await queryProjected<Record<string, unknown>>(db().entities.ticketTermCount.query.byTerm({ orgId, boardId }).params() as QueryParams, []);
  const kept = new Map<string, number>();
  for (const item of items) {
    for (const [name, value] of Object.entries(item)) if (parseTermCountName(name) && value !== 0) kept.set(`${item.term} ${name}`, value as number);
  }
  expect([...kept].sort(), `term counts of ${boardId}`).toEqual([...fromEntries].sort());
  return fromEntries.size;
}

const SEARCHES = ['deploy', 'DEPLOYMENT', 'dep', 'creme', 'Crème brûlée', 'fail deplo', 'database', 'x', 'needle', 'SRA-3', 'sra-1', 'SRB', '—', 'zzz-nothing'];

function listsOf(searches: string[]): string[] {
  const flags = ['', '&includePlanning=true&includeArchived=true', `&statusId=${statuses.IN_PROGRESS!.id},${statuses.DONE!.id}`];
  return searches.flatMap((search) =>
    flags.flatMap((flag) => {
      const query = `search=${encodeURIComponent(search)}${flag}`;
      return [`/api/v1/boards/${boards[0]}/tickets?${query}`, `/api/v1/boards/${boards[1]}/tickets?${query}`, `/api/v1/issues?${query}`];
    }),
  );
}

/** Each list through the index, then through the full read: identical. */
async function compare(lists: string[]): Promise<number> {
  const indexed = [];
  for (const list of lists) indexed.push(await pagesOf(list));
  let nonEmpty = 0;
  for (const [index, list] of lists.entries()) {
    const full = await pagesOf(`${list}${FULL_READ}`);
    expect(indexed[index], list).toEqual(full);
    if (full.total > 0) nonEmpty += 1;
  }
  return nonEmpty;
}

beforeAll(async () => {
  org = await signupOrg();
  statuses = Object.fromEntries((await org.call('GET', '/api/v1/statuses')).body.data.map((status: any) => [status.key, status]));
  boards = [];
  for (const prefix of ['SRA', 'SRB']) boards.push((await answered(org.call('POST', '/api/v1/boards', { body: { name: `Search ${prefix}`, prefix } }), 201)).id);
  const cycle = ['BACKLOG', 'IN_PROGRESS', 'IN_REVIEW', 'DONE'].map((key) => statuses[key]!.id);
  const texts: [string, string][] = [
    ['Deployment failed on staging', 'The deploy script exits 1'],
    ['Crème brûlée for the team', 'Dessert planning'],
    ['CREME BRULEE recipe', ''],
    ['Database migration', 'Deployment of the new schema; a needle in a haystack'],
    ['Fix the login flow', 'x marks the spot'],
    ['Deploy docs', 'failure report'],
    ['Naïve café search', 'résumé parsing'],
    ['Unrelated work', 'nothing to see'],
  ];
  for (let index = 0; index < 24; index += 1) {
    const [title, description] = texts[index % texts.length]!;
    const boardId = boards[index % 2]!;
    const ticket = await createTicket(org, boardId, { title: `${title} ${index}`, description, statusId: cycle[index % cycle.length] });
    tickets.push({ id: ticket.id, boardId });
  }
  const path = (ticket: { id: string; boardId: string }) => `/api/v1/boards/${ticket.boardId}/tickets/${ticket.id}`;
  await answered(org.call('PATCH', path(tickets[0]!), { body: { title: 'Renamed entirely', description: 'no more of those words' } }));
  await answered(org.call('PATCH', path(tickets[1]!), { body: { isArchived: true } }));
  await answered(org.call('DELETE', path(tickets[2]!)), 204);
  await answered(org.call('POST', `${path(tickets[4]!)}/move`, { body: { targetBoardId: boards[1] } }));
  tickets[4] = { id: tickets[4]!.id, boardId: boards[1]! };
  await answered(org.call('PATCH', `/api/v1/boards/${boards[1]}/tickets/reorder`, { body: { ticketId: tickets[5]!.id, position: 0, statusId: statuses.DONE!.id } }));
});

describe('the search rule', () => {
  it('folds case and accents, splits words, and matches word prefixes or the display id', () => {
    expect(fold('Crème BRÛLÉE')).toBe('creme brulee');
    expect(wordsOf('Deploy-ment, deploy! Café')).toEqual(['deploy', 'ment', 'cafe']);
    const ticket = { title: 'Deployment failed', description: 'on the staging host', displayId: 'WEB-42' };
    expect(matchesSearch(ticket, 'deplo FAIL')).toBe(true);
    expect(matchesSearch(ticket, 'stag')).toBe(true);
    expect(matchesSearch(ticket, 'web-42')).toBe(true);
    expect(matchesSearch(ticket, 'web-4')).toBe(false);
    expect(matchesSearch(ticket, 'ployment')).toBe(false);
    expect(matchesSearch(ticket, 'deploy missing')).toBe(false);
    expect(matchesSearch(ticket, '—')).toBe(false);
  });
});

describe('searches served by the search index', () => {
  it('answer every page and total as the full read does, once every write is indexed', async () => {
    await drained();
    const nonEmpty = await compare(listsOf(SEARCHES));
    expect(nonEmpty).toBeGreaterThan(30);
    // The renames, the move between boards, the archiving and the deletion moved the counts with the entries.
    for (const boardId of boards) await expectCountsToMatchEntries(org.orgId, boardId);
  }, 240_000);

  it('answer as the full read does right after writes the index has not caught up with', async () => {
    await drained();
    const path = (ticket: { id: string; boardId: string }) => `/api/v1/boards/${ticket.boardId}/tickets/${ticket.id}`;
    // Several writes, then search at once: the index still holds the old words, places and states.
    await answered(org.call('PATCH', path(tickets[6]!), { body: { title: 'Database deployment checklist' } }));
    await answered(org.call('PATCH', path(tickets[7]!), { body: { description: 'a needle too' } }));
    await answered(org.call('POST', `${path(tickets[8]!)}/move`, { body: { targetBoardId: boards[1] } }));
    tickets[8] = { id: tickets[8]!.id, boardId: boards[1]! };
    await answered(org.call('DELETE', path(tickets[9]!)), 204);
    await answered(org.call('PATCH', `${path(tickets[10]!)}/status`, { body: { statusId: statuses.IN_PROGRESS!.id } }));
    const created = await createTicket(org, boards[0]!, { title: 'Brand new deployment', statusId: statuses.IN_PROGRESS!.id });
    expect((await pendingOf()).length).toBeGreaterThan(0);
    const lists = listsOf(['deploy', 'database', 'needle', 'brand']);
    const first = await pagesOf(lists[0]!);
    expect(first.ids).toContain(created.id);
    expect(await compare(lists)).toBeGreaterThan(5);
  }, 120_000);
});

describe('a one-word search most of a large board matches', () => {
  it('counts its total and reads its page from the columns, answering as the full read does, pending writes too', async () => {
    const big = await signupOrg();
    const bigStatuses = (await big.call('GET', '/api/v1/statuses')).body.data as { id: string; key: string; category: string }[];
    const board = await answered(big.call('POST', '/api/v1/boards', { body: { name: 'Dense search', prefix: 'DSR' } }), 201);
    const typeId = (await big.call('GET', '/api/v1/ticket-types')).body.data[0].id;
    const vocabulary = {
      activeStatusIds: bigStatuses.filter((status) => status.category === 'ACTIVE').map((status) => status.id),
      typeId, assignee: { id: big.adminId, name: 'Ada Admin' }, createdById: big.adminId,
    };
    // "Ticket N: fix the login flow", and a description with "filter", "the", "to", "totals"...
    await seedBoard({ orgId: big.orgId, boardId: board.id, prefix: 'DSR' }, vocabulary, 250);
    const done = bigStatuses.find((status) => status.key === 'DONE')!.id;
    const ticketPath = (ticketId: string) => `/api/v1/boards/${board.id}/tickets/${ticketId}`;
    const early = (await answered(big.call('GET', `/api/v1/boards/${board.id}/tickets?limit=10`))).data as { id: string }[];
    await answered(big.call('PATCH', `${ticketPath(early[0]!.id)}/status`, { body: { statusId: done } }));
    await answered(big.call('PATCH', ticketPath(early[1]!.id), { body: { isArchived: true } }));
    const flags = ['', `&includeArchived=true&statusId=${vocabulary.activeStatusIds[0]},${done}`];
    const lists = [
      ...['flow', 'f', 'bu'].flatMap((search) => flags.map((flag) => `/api/v1/boards/${board.id}/tickets?search=${search}${flag}`)),
      ...flags.map((flag) => `/api/v1/issues?search=flow${flag}`),
    ];
    const samplePages = async (list: string) => {
      const answers = [];
      // Page 1 comes from the columns (a few tickets read for its 20); page 10 from the counted entries (its end, 200, would cost more from the columns).
      for (const page of [1, 10]) {
        const body = await answered(big.call('GET', `${list}&limit=20&page=${page}`));
        answers.push({ total: body.total, ids: body.data.map((ticket: { id: string }) => ticket.id) });
      }
      return answers;
    };
    /**
     * Each list from the dense path, then from the full read: identical. (The entries path, which
     * the dense one replaces here, is held to the full read by the tests above.)
     */
    const counted = async () => {
      const dense = [];
      for (const list of lists) dense.push(await samplePages(list));
      return dense;
    };
    const compareAll = async () => {
      const dense = await counted();
      // The same lists from the full read.
      for (const [index, list] of lists.entries()) expect(dense[index], `${list} (full read)`).toEqual(await samplePages(`${list}${FULL_READ}`));
      return dense;
    };
    const pendingOfBig = async () => (await db().entities.searchPending.query.byOrganization({ orgId: big.orgId }).go()).data;
    await waitUntil(pendingOfBig, (pending) => pending.length === 0, 60_000);
    expect(await expectCountsToMatchEntries(big.orgId, board.id)).toBeGreaterThan(10);
    const indexed = await compareAll();
    expect(indexed[0]![0]!.total).toBeGreaterThan(240);
    expect(indexed[0]![0]!.ids).toHaveLength(20);
    // Writes the index has not caught up with when the lists are read: the title loses its words,
    // a new ticket, a deletion, a move to DONE.
    await answered(big.call('PATCH', ticketPath(early[2]!.id), { body: { title: 'Nothing here', description: 'gone' } }));
    await createTicket(big, board.id, { title: 'A brand new flow to fix', statusId: vocabulary.activeStatusIds[0] });
    await answered(big.call('DELETE', ticketPath(early[3]!.id)), 204);
    await answered(big.call('PATCH', `${ticketPath(early[4]!.id)}/status`, { body: { statusId: done } }));
    const pending = await compareAll();
    expect(pending[0]![0]!.total).toBe(indexed[0]![0]!.total - 2);
    // Indexed, those writes moved the counts with their entries: the counted lists answer as the full read did.
    await waitUntil(pendingOfBig, (left) => left.length === 0, 60_000);
    await expectCountsToMatchEntries(big.orgId, board.id);
    expect(await counted()).toEqual(pending);
  }, 240_000);
});

describe('the indexer', () => {
  it('ends in the ticket\'s entries however runs overlap, repeat or died midway', async () => {
    await drained();
    const ticket = (await db().entities.ticket.get({ ticketId: tickets[11]!.id }).go({ consistent: true })).data!;
    const stored = async () =>
      (await db().entities.ticketTerm.query.byTerm({ orgId: org.orgId, boardId: ticket.boardId }).go({ pages: 'all', consistent: true })).data
        .filter((entry) => entry.ticketId === ticket.ticketId)
        .map(({ term, statusId, positionKey, isArchived }) => ({ term, statusId, positionKey, isArchived }))
        .sort((a, b) => a.term.localeCompare(b.term));
    const expected = termEntriesOf(ticket).map(({ term, statusId, positionKey, isArchived }) => ({ term, statusId, positionKey, isArchived })).sort((a, b) => a.term.localeCompare(b.term));
    expect(await stored()).toEqual(expected);
    // A run that died midway, before finishing: its record is dirty and names the stray entry it
    // added (with its count, in one transaction), and one entry has a position written (a plain
    // put: its count did not move) that the ticket no longer has.
    const stray = { orgId: org.orgId, boardId: ticket.boardId, term: 'strayword', ticketId: ticket.ticketId, statusId: ticket.statusId, positionKey: 'x', isArchived: false, shared: 0, counted: true };
    await db().entities.ticketTerm.put(stray).go();
    await documentDb().send(new UpdateCommand(countUpdate(stray, [[termCountName(0, stray.statusId, false), 1]])));
    const first = (await db().entities.ticketTerm.get({ orgId: org.orgId, boardId: ticket.boardId, term: expected[0]!.term, ticketId: ticket.ticketId }).go()).data!;
    await db().entities.ticketTerm.put({ ...first, positionKey: 'stale' }).go();
    await db().entities.ticketSearchDoc.patch({ ticketId: ticket.ticketId }).set({ dirty: true, extra: [`${ticket.boardId}\u0000strayword`] }).go();
    await expectCountsToMatchEntries(org.orgId, ticket.boardId);
    await indexTicketSearch(org.orgId, ticket.ticketId, systemClock);
    expect(await stored()).toEqual(expected);
    await expectCountsToMatchEntries(org.orgId, ticket.boardId);
    // Five runs at once, and again: one at a time by the lease, the same entries.
    await Promise.all(Array.from({ length: 5 }, () => indexTicketSearch(org.orgId, ticket.ticketId, systemClock)));
    expect(await stored()).toEqual(expected);
    const doc = (await db().entities.ticketSearchDoc.get({ ticketId: ticket.ticketId }).go({ consistent: true })).data!;
    expect(doc).toMatchObject({ version: ticket.version, dirty: false, extra: [] });
    expect(doc.leaseToken).toBeUndefined();
    await expectCountsToMatchEntries(org.orgId, ticket.boardId);
  }, 120_000);

  it('leaves a ticket whose lease a dead run holds to the sweeper, which indexes it once the lease has run out', async () => {
    await drained();
    const target = tickets[13]!;
    // A run died holding the lease, midway: dirty, with a stray entry it had announced.
    await db().entities.ticketSearchDoc.patch({ ticketId: target.id }).set({ leaseToken: 'dead-run', leaseUntil: new Date(Date.now() + 120_000).toISOString(), dirty: true, extra: [`${target.boardId}\u0000deadword`] }).go();
    await db().entities.ticketTerm.put({ orgId: org.orgId, boardId: target.boardId, term: 'deadword', ticketId: target.id, statusId: statuses.IN_PROGRESS!.id, positionKey: 'x', isArchived: false }).go();
    await answered(org.call('PATCH', `/api/v1/boards/${target.boardId}/tickets/${target.id}`, { body: { title: 'Resurrected title' } }));
    // The job leaves the ticket to the lease's holder (the stream goes on): the marker stays, and searches judge the ticket themselves.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect((await pendingOf()).map((marker) => marker.ticketId)).toContain(target.id);
    expect(await compare(listsOf(['resurrected', 'deadword']))).toBeGreaterThan(0);
    // Three minutes on, the lease has run out: the sweeper indexes the ticket.
    const results = await runSweep(clockAt(new Date(Date.now() + 180_000)), { orgId: org.orgId });
    expect(results.staleSearchIndex).toBeGreaterThanOrEqual(1);
    expect((await pendingOf()).map((marker) => marker.ticketId)).not.toContain(target.id);
    const terms = (await db().entities.ticketTerm.query.byTerm({ orgId: org.orgId, boardId: target.boardId }).go({ pages: 'all', consistent: true })).data
      .filter((entry) => entry.ticketId === target.id).map((entry) => entry.term);
    expect(terms).toContain('resurrected');
    expect(terms).not.toContain('deadword');
    expect(await compare(listsOf(['resurrected', 'deadword']))).toBeGreaterThan(0);
    await expectCountsToMatchEntries(org.orgId, target.boardId);
  }, 120_000);
});
