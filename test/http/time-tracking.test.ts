import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, createToken, expectValidationError, setPlan, type ApiResponse, useInProcess } from '../support/api.js';
import { createAgent, createTicket, type TestAgent, createBoard } from '../support/factories.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { db } from '../../lib/db/service.js';
import { timeRoutes } from '../../lib/time/http.js';
import { isoWeekOf } from '../../lib/time/calendar.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Time tracking through the local runtime (docs/features.md, Time tracking): timers, entries, the approval of agent
 * time with its factor and weekly cap, booking items, lists, summaries and the switch.
 */
const T = '/api/v1/time-tracking';
const today = () => new Date().toISOString().slice(0, 10);

interface World extends BoardSetup {
  ticket: any;
  member: { id: string; token: string };
  owner: { id: string; token: string };
  agent: TestAgent;
  asMember: (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
}

async function world(name: string, agentSettings: Record<string, unknown> = {}): Promise<World> {
  const setup = await boardSetup(name);
  await setPlan(setup.org.slug, 'PRO');
  const member = await createMember(setup.org, { name: 'Mia Member' });
  const owner = await createMember(setup.org, { name: 'Olga Owner' });
  for (const userId of [member.id, owner.id]) await setup.org.call('POST', `/api/v1/boards/${setup.boardId}/members`, { body: { userId } });
  const agent = await createAgent(setup.org, { agent: { name: 'Clocker', ownerId: owner.id }, settings: agentSettings, boardIds: [setup.boardId] });
  const ticket = await createTicket(setup.org, setup.boardId, { title: 'Build the time machine', estimatedHours: 2 });
  return {
    ...setup,
    ticket,
    member,
    owner,
    agent,
    asMember: (method, path, body) => api(method, path, { token: member.token, org: setup.org.slug, ...(body !== undefined ? { body } : {}) }),
  };
}

/** Every stored time item of the organization (entries, timers, week counters): what a refused request must leave as it was. */
async function timeState(orgId: string, userIds: string[]) {
  const entries = await Promise.all(userIds.map((userId) => db().entities.timeEntry.query.byUser({ orgId, userId }).go({ pages: 'all' })));
  const timers = await Promise.all(userIds.map((userId) => db().entities.timer.query.byUser({ orgId, userId }).go({ pages: 'all' })));
  const weeks = await Promise.all(userIds.map((agentId) => db().entities.agentWeek.query.byAgent({ orgId, agentId }).go({ pages: 'all' })));
  return JSON.stringify([entries.map((r) => r.data), timers.map((r) => r.data), weeks.map((r) => r.data)]);
}

describe('time tracking switch and permissions', () => {
  it('answers 403 TIME_TRACKING_DISABLED on every route while the organization has it off, writing nothing', async () => {
    const w = await world('Switch');
    expect((await w.org.call('PATCH', '/api/v1/organization', { body: { settings: { timeTrackingEnabled: false } } })).status).toBe(200);
    const before = await timeState(w.org.orgId, [w.org.adminId]);
    const ids = { timerId: 'tmr_X', entryId: 'te_X', bookingItemId: 'bki_X', boardId: w.boardId, ticketId: w.ticket.id };
    for (const key of Object.keys(timeRoutes)) {
      const [method, template] = key.split(' ') as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_m, name: keyof typeof ids) => ids[name]);
      // Valid bodies: the switch is checked once the request is well-formed.
      const bodies: Record<string, unknown> = {
        [`POST ${T}/entries`]: { ticketId: w.ticket.id, durationMinutes: 5 },
        [`POST ${T}/booking-items`]: { name: 'Item' },
        [`PUT ${T}/sync-endpoint`]: { url: 'https://example.com/hook' },
      };
      const body = bodies[key] ?? (method === 'GET' || method === 'DELETE' ? undefined : {});
      const response = await w.org.call(method, path, body !== undefined ? { body } : {});
      expect([key, response.status, response.body?.error?.code]).toEqual([key, 403, 'TIME_TRACKING_DISABLED']);
    }
    expect(await timeState(w.org.orgId, [w.org.adminId])).toBe(before);
    await w.org.call('PATCH', '/api/v1/organization', { body: { settings: { timeTrackingEnabled: true } } });
    expect((await w.org.call('GET', `${T}/timers`)).status).toBe(200);
  });

  it('refuses callers without time-tracking permissions (customer users), and members on booking items and the sync endpoint', async () => {
    const w = await world('Perms');
    const customer = (await w.org.call('POST', '/api/v1/customers', { body: { name: 'Client Co' } })).body;
    const customerUser = await createMember(w.org, { role: 'CUSTOMER', customerId: customer.id });
    const asCustomer = (method: string, path: string, body?: unknown) => api(method, path, { token: customerUser.token, org: w.org.slug, ...(body ? { body } : {}) });
    expect((await asCustomer('GET', `${T}/entries`)).status).toBe(403);
    expect((await asCustomer('POST', `${T}/timers`, { ticketId: w.ticket.id })).status).toBe(403);
    expect((await w.asMember('POST', `${T}/booking-items`, { name: 'Support' })).status).toBe(403);
    expect((await w.asMember('PUT', `${T}/sync-endpoint`, { url: 'https://example.com/x' })).status).toBe(403);
    expect((await w.asMember('GET', `${T}/sync-endpoint`)).status).toBe(403);
    expect((await w.asMember('GET', `${T}/booking-items`)).status).toBe(200);
  });
});

describe('timers', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('Timers');
  });

  it('runs one timer per ticket per person, lists them, and stops one into an entry of at least a minute', async () => {
    const started = await w.asMember('POST', `${T}/timers`, { ticketId: w.ticket.displayId });
    expect(started.status).toBe(201);
    expect(started.body).toEqual({
      id: expect.stringMatching(/^tmr_/),
      ticketId: w.ticket.id,
      ticket: { id: w.ticket.id, displayId: w.ticket.displayId, title: 'Build the time machine', boardId: w.boardId },
      bookingItemId: null,
      bookingItem: null,
      startedAt: expect.any(String),
    });
    const second = await w.asMember('POST', `${T}/timers`, { ticketId: w.ticket.id });
    expect(second.status).toBe(409);
    expect(second.body.error.details.timerId).toBe(started.body.id);
    // Another person may time the same ticket.
    expect((await w.org.call('POST', `${T}/timers`, { body: { ticketId: w.ticket.id } })).status).toBe(201);

    const listed = await w.asMember('GET', `${T}/timers`);
    expect(listed.body.map((timer: any) => timer.id)).toEqual([started.body.id]);

    const stopped = await w.asMember('POST', `${T}/timers/${started.body.id}/stop`, { description: 'Calibrated the flux' });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({
      id: expect.stringMatching(/^te_/),
      ticketId: w.ticket.id,
      durationMinutes: 1,
      description: 'Calibrated the flux',
      date: started.body.startedAt.slice(0, 10),
      state: 'APPROVED',
      source: 'TIMER',
      createdAt: expect.any(String),
    });
    expect((await w.asMember('GET', `${T}/timers`)).body).toEqual([]);
    expect((await w.asMember('POST', `${T}/timers/${started.body.id}/stop`, {})).status).toBe(404);
  });

  it('stops the minutes a timer ran, rounded to whole minutes', async () => {
    const started = await w.asMember('POST', `${T}/timers`, { ticketId: w.ticket.id });
    const key = { orgId: w.org.orgId, userId: w.member.id, target: w.ticket.id };
    await db().entities.timer.patch(key).set({ startedAt: new Date(Date.now() - 47 * 60_000 - 20_000).toISOString() }).go();
    const stopped = await w.asMember('POST', `${T}/timers/${started.body.id}/stop`);
    expect(stopped.body.durationMinutes).toBe(47);
  });

  it('stops all timers of the caller, on tickets and booking items', async () => {
    const item = (await w.org.call('POST', `${T}/booking-items`, { body: { name: 'Meetings' } })).body;
    const other = await createTicket(w.org, w.boardId, { title: 'Second' });
    for (const body of [{ ticketId: w.ticket.id }, { ticketId: other.id }, { bookingItemId: item.id }]) {
      expect((await w.asMember('POST', `${T}/timers`, body)).status).toBe(201);
    }
    const all = await w.asMember('POST', `${T}/timers/stop-all`, { description: 'End of day' });
    expect(all.status).toBe(200);
    expect(all.body.notStopped).toEqual([]);
    expect(all.body.stopped.map((entry: any) => entry.ticketId ?? entry.bookingItem.name).sort()).toEqual([w.ticket.id, other.id, 'Meetings'].sort());
    expect(all.body.stopped.every((entry: any) => entry.description === 'End of day')).toBe(true);
    expect((await w.asMember('GET', `${T}/timers`)).body).toEqual([]);
  });

  it('books a timer on an item deactivated since its start, and discards a timer whose ticket was deleted', async () => {
    const item = (await w.org.call('POST', `${T}/booking-items`, { body: { name: 'Retiring' } })).body;
    const onItem = (await w.asMember('POST', `${T}/timers`, { bookingItemId: item.id })).body;
    await w.org.call('PATCH', `${T}/booking-items/${item.id}`, { body: { isActive: false } });
    const booked = await w.asMember('POST', `${T}/timers/${onItem.id}/stop`);
    expect(booked.status).toBe(200);
    expect(booked.body).toMatchObject({ bookingItemId: item.id, ticketId: null, bookingItem: { id: item.id, name: 'Retiring' } });

    const doomed = await createTicket(w.org, w.boardId, { title: 'Doomed' });
    const onTicket = (await w.asMember('POST', `${T}/timers`, { ticketId: doomed.id })).body;
    expect((await w.org.call('DELETE', `/api/v1/boards/${w.boardId}/tickets/${doomed.id}`)).status).toBe(204);
    expect((await w.asMember('POST', `${T}/timers/${onTicket.id}/stop`)).status).toBe(404);
    expect((await w.asMember('GET', `${T}/timers`)).body).toEqual([]);
  });

  it('refuses both or neither of ticketId and bookingItemId, unknown or invisible tickets, inactive items', async () => {
    const item = (await w.org.call('POST', `${T}/booking-items`, { body: { name: 'Old', isActive: false } })).body;
    const before = await timeState(w.org.orgId, [w.member.id]);
    expectValidationError(await w.asMember('POST', `${T}/timers`, {}), 'ticketId');
    expectValidationError(await w.asMember('POST', `${T}/timers`, { ticketId: w.ticket.id, bookingItemId: item.id }), 'ticketId');
    expectValidationError(await w.asMember('POST', `${T}/timers`, { bookingItemId: item.id }), 'bookingItemId');
    expect((await w.asMember('POST', `${T}/timers`, { ticketId: 'tkt_NOPE' })).status).toBe(404);
    const hidden = (await createBoard(w.org, { name: 'Hidden', prefix: 'HID' }));
    const secret = await createTicket(w.org, hidden.id, { title: 'Secret' });
    expect((await w.asMember('POST', `${T}/timers`, { ticketId: secret.id })).status).toBe(404);
    expect((await w.asMember('POST', `${T}/entries`, { ticketId: secret.id, durationMinutes: 5 })).status).toBe(404);
    expect(await timeState(w.org.orgId, [w.member.id])).toBe(before);
  });
});

describe('entries', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('Entries');
  });

  it('books time (today by default), lists it with filters and an exact total, and records it on the timeline', async () => {
    const created = await w.asMember('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 30, description: 'Wiring' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ durationMinutes: 30, rawDurationMinutes: 30, timeFactor: null, date: today(), state: 'APPROVED', source: 'MANUAL', user: { id: w.member.id, name: 'Mia Member', isAgent: false }, syncStatus: null, billed: false });
    await w.asMember('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 15, description: 'Testing', date: '2025-02-10' });
    const item = (await w.org.call('POST', `${T}/booking-items`, { body: { name: 'Workshop' } })).body;
    await w.asMember('POST', `${T}/entries`, { bookingItemId: item.id, durationMinutes: 60, date: '2025-02-11T23:30:00+01:00' });

    const all = await w.asMember('GET', `${T}/entries`);
    expect(all.body).toMatchObject({ total: 3, page: 1, pageSize: 50, totalPages: 1 });
    expect(all.body.data.map((entry: any) => entry.date)).toEqual([today(), '2025-02-11', '2025-02-10']);
    expect((await w.asMember('GET', `${T}/entries?year=2025&month=2`)).body.total).toBe(2);
    expect((await w.asMember('GET', `${T}/entries?year=2025&month=3`)).body.total).toBe(0);
    expect((await w.asMember('GET', `${T}/entries?boardId=${w.boardId}`)).body.total).toBe(2);
    expect((await w.asMember('GET', `${T}/entries?search=WIRING`)).body.data.map((entry: any) => entry.description)).toEqual(['Wiring']);
    expect((await w.asMember('GET', `${T}/entries?search=workshop`)).body.total).toBe(1);
    expect((await w.asMember('GET', `${T}/entries?search=${w.ticket.displayId}`)).body.total).toBe(2);
    expect((await w.asMember('GET', `${T}/entries?limit=1&page=2`)).body).toMatchObject({ total: 3, page: 2, pageSize: 1, totalPages: 3 });
    expect((await w.asMember('GET', `${T}/entries?limit=500`)).body.pageSize).toBe(100);
    // Someone else's entries need time-tracking:approve.
    expect((await w.asMember('GET', `${T}/entries?userId=${w.org.adminId}`)).status).toBe(403);
    expect((await w.org.call('GET', `${T}/entries?userId=${w.member.id}`)).body.total).toBe(3);

    const timeline = (await w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets/${w.ticket.id}/timeline?limit=100`)).body.data;
    expect(timeline.filter((entry: any) => entry.kind === 'TIME_LOGGED').map((entry: any) => entry.details.durationMinutes)).toEqual([30, 15]);
  });

  it('refuses bad input with 400 and writes nothing', async () => {
    const before = await timeState(w.org.orgId, [w.member.id]);
    const post = (body: Record<string, unknown>) => w.asMember('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 10, ...body });
    expectValidationError(await post({ durationMinutes: 0 }), 'durationMinutes');
    expectValidationError(await post({ durationMinutes: 1.5 }), 'durationMinutes');
    expectValidationError(await post({ durationMinutes: undefined }), 'durationMinutes');
    expectValidationError(await post({ description: 'x'.repeat(501) }), 'description');
    expectValidationError(await post({ date: '10/02/2025' }), 'date');
    expectValidationError(await post({ date: '2025-02-30' }), 'date');
    expectValidationError(await w.asMember('POST', `${T}/entries`, { durationMinutes: 5 }), 'ticketId');
    expectValidationError(await w.asMember('GET', `${T}/entries?month=13`), 'month');
    expectValidationError(await w.asMember('GET', `${T}/entries/today-by-ticket?tzOffset=900`), 'tzOffset');
    expectValidationError(await w.asMember('GET', `${T}/entries/today-by-ticket?tzOffset=-841`), 'tzOffset');
    expect(await timeState(w.org.orgId, [w.member.id])).toBe(before);
  });

  it('lets the owner change and delete their entry; others need time-tracking:approve', async () => {
    const entry = (await w.asMember('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 20 })).body;
    const patched = await w.asMember('PATCH', `${T}/entries/${entry.id}`, { durationMinutes: 25, description: 'More', date: '2025-03-01' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ durationMinutes: 25, description: 'More', date: '2025-03-01' });
    const colleague = await createMember(w.org, { name: 'Colleague' });
    const asColleague = (method: string, body?: unknown) => api(method, `${T}/entries/${entry.id}`, { token: colleague.token, org: w.org.slug, ...(body ? { body } : {}) });
    // Not on the board: the entry does not exist for them.
    expect((await asColleague('PATCH', { durationMinutes: 1 })).status).toBe(404);
    await w.org.call('POST', `/api/v1/boards/${w.boardId}/members`, { body: { userId: colleague.id } });
    expect((await asColleague('PATCH', { durationMinutes: 1 })).status).toBe(403);
    expect((await asColleague('DELETE')).status).toBe(403);
    // An administrator holds time-tracking:approve.
    expect((await w.org.call('PATCH', `${T}/entries/${entry.id}`, { body: { durationMinutes: 26 } })).body.durationMinutes).toBe(26);
    expect((await w.asMember('DELETE', `${T}/entries/${entry.id}`)).status).toBe(204);
    expect((await w.asMember('DELETE', `${T}/entries/${entry.id}`)).status).toBe(404);
    const kinds = (await w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets/${w.ticket.id}/timeline?limit=100`)).body.data.map((e: any) => e.kind);
    expect(kinds.filter((kind: string) => kind.startsWith('TIME_')).slice(-3)).toEqual(['TIME_UPDATED', 'TIME_UPDATED', 'TIME_DELETED']);
  });

  it('answers recent work grouped by ticket and today by ticket at the caller\'s offset', async () => {
    const fresh = await world('Today');
    const other = await createTicket(fresh.org, fresh.boardId, { title: 'Other' });
    await fresh.asMember('POST', `${T}/entries`, { ticketId: fresh.ticket.id, durationMinutes: 10 });
    await fresh.asMember('POST', `${T}/entries`, { ticketId: other.id, durationMinutes: 20 });
    await fresh.asMember('POST', `${T}/entries`, { ticketId: fresh.ticket.id, durationMinutes: 5 });
    await fresh.asMember('POST', `${T}/entries`, { ticketId: other.id, durationMinutes: 7, date: '2024-01-01' });

    const recent = await fresh.asMember('GET', `${T}/entries/recent`);
    expect(recent.status).toBe(200);
    expect(recent.body.map((group: any) => [group.ticket.title, group.entryCount, group.totalMinutes])).toEqual([
      ['Build the time machine', 2, 15],
      ['Other', 2, 27],
    ]);
    expect((await fresh.asMember('GET', `${T}/entries/recent?limit=1`)).body).toHaveLength(1);

    const now = new Date();
    const todayResponse = await fresh.asMember('GET', `${T}/entries/today-by-ticket`);
    expect(todayResponse.body).toMatchObject({ date: today(), tzOffset: 0, totalMinutes: 35 });
    expect(todayResponse.body.tickets.map((group: any) => [group.ticketId, group.totalMinutes, group.entries.length])).toEqual([
      [fresh.ticket.id, 15, 2],
      [other.id, 20, 1],
    ]);
    // 14 hours east of UTC is the next calendar day from 10:00 UTC on, the same day before.
    const east = await fresh.asMember('GET', `${T}/entries/today-by-ticket?tzOffset=840`);
    const eastDay = new Date(now.getTime() + 840 * 60_000).toISOString().slice(0, 10);
    expect(east.body.date).toBe(eastDay);
    expect(east.body.totalMinutes).toBe(eastDay === today() ? 35 : 0);
  });

  it('pages a board\'s entries newest first (date, then id) from its index, with the exact total of the period', async () => {
    const fresh = await world('Board pages');
    for (const date of ['2025-06-03', '2025-06-02', '2025-06-03', '2025-05-30', '2025-06-01', '2025-06-03', '2025-07-01', '2025-05-01']) {
      await fresh.org.call('POST', `${T}/entries`, { body: { ticketId: fresh.ticket.id, durationMinutes: 5, date } });
    }
    const whole = (await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/time-entries`)).body;
    expect(whole.total).toBe(8);
    const order = [...whole.data].sort((a: any, b: any) => b.date.localeCompare(a.date) || b.id.localeCompare(a.id)).map((entry: any) => entry.id);
    expect(whole.data.map((entry: any) => entry.id)).toEqual(order);
    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push((await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/time-entries?limit=3&page=${page}`)).body);
    expect(pages.map((body) => [body.total, body.totalPages, body.data.length])).toEqual([[8, 3, 3], [8, 3, 3], [8, 3, 2], [8, 3, 0]]);
    expect(pages.flatMap((body) => body.data.map((entry: any) => entry.id))).toEqual(order);
    const june = (await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/time-entries?year=2025&month=6&limit=2&page=2`)).body;
    expect(june).toMatchObject({ total: 5, totalPages: 3 });
    expect(june.data.map((entry: any) => entry.date)).toEqual(['2025-06-03', '2025-06-02']);
  });

  it('pages a ticket\'s entries newest first from its index', async () => {
    const fresh = await world('Ticket pages');
    const other = await createTicket(fresh.org, fresh.boardId, { title: 'Other ticket' });
    await fresh.org.call('POST', `${T}/entries`, { body: { ticketId: other.id, durationMinutes: 5, date: '2025-06-04' } });
    const dates = ['2025-06-03', '2025-06-02', '2025-06-03', '2025-05-30', '2025-06-01', '2025-06-03', '2025-07-01'];
    for (const [index, date] of dates.entries()) {
      const caller = index % 2 === 0 ? (path: string, body: unknown) => fresh.org.call('POST', path, { body }) : (path: string, body: unknown) => fresh.asMember('POST', path, body);
      expect((await caller(`${T}/entries`, { ticketId: fresh.ticket.id, durationMinutes: 5 + index, date })).status).toBe(201);
    }
    const stored = (await db().entities.timeEntry.query.byTicketDate({ orgId: fresh.org.orgId, ticketKey: fresh.ticket.id }).go({ pages: 'all' })).data;
    const order = stored.sort((a, b) => b.date.localeCompare(a.date) || b.entryId.localeCompare(a.entryId)).map((entry) => entry.entryId);
    const expectPages = async () => {
      const pages = [];
      for (const page of [1, 2, 3]) pages.push((await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/tickets/${fresh.ticket.displayId}/time-entries?limit=3&page=${page}`)).body);
      expect(pages.map((body) => [body.total, body.totalPages, body.data.length])).toEqual([[7, 3, 3], [7, 3, 3], [7, 3, 1]]);
      expect(pages.flatMap((body) => body.data.map((entry: any) => entry.id))).toEqual(order);
    };
    expect(stored).toHaveLength(dates.length);
    await expectPages();
  }, 120_000);

  it('lists a board\'s and a ticket\'s entries of everyone, and summarizes a ticket against its estimate', async () => {
    const fresh = await world('Summary');
    await fresh.asMember('POST', `${T}/entries`, { ticketId: fresh.ticket.id, durationMinutes: 45 });
    await fresh.org.call('POST', `${T}/entries`, { body: { ticketId: fresh.ticket.id, durationMinutes: 30, date: '2025-06-01' } });
    const agentEntry = (await fresh.agent.call('POST', `${T}/entries`, { ticketId: fresh.ticket.id, durationMinutes: 30 })).body;
    const rejected = (await fresh.agent.call('POST', `${T}/entries`, { ticketId: fresh.ticket.id, durationMinutes: 10 })).body;
    await fresh.org.call('POST', `${T}/entries/${rejected.id}/reject`, { body: { reason: 'Not this ticket' } });

    const board = await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/time-entries`);
    expect(board.body).toMatchObject({ total: 4, pageSize: 50 });
    expect((await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/time-entries?year=2025&month=6`)).body.total).toBe(1);
    const ticketList = await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/tickets/${fresh.ticket.displayId}/time-entries?limit=2`);
    expect(ticketList.body).toMatchObject({ total: 4, pageSize: 2, totalPages: 2 });

    const summary = await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/tickets/${fresh.ticket.id}/time-entries/summary`);
    expect(summary.status).toBe(200);
    expect(summary.body).toEqual({
      ticketId: fresh.ticket.id,
      totalMinutes: 45 + 30 + 30,
      entryCount: 3,
      byUser: [
        { userId: fresh.member.id, name: 'Mia Member', isAgent: false, minutes: 45 },
        ...[
          { userId: fresh.agent.id, name: 'Clocker', isAgent: true, minutes: 30 },
          { userId: fresh.org.adminId, name: 'Ada Admin', isAgent: false, minutes: 30 },
        ].sort((a, b) => a.userId.localeCompare(b.userId)),
      ],
      byState: { PENDING: { count: 1, minutes: agentEntry.durationMinutes }, APPROVED: { count: 2, minutes: 75 }, REJECTED: { count: 1, minutes: 10 } },
    });
    const budget = await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/tickets/${fresh.ticket.id}/time-entries/summary-with-budget`);
    expect(budget.body).toMatchObject({ estimatedHours: 2, estimatedMinutes: 120, trackedMinutes: 105, remainingMinutes: 15, percentage: 87.5, isOverBudget: false });
    await fresh.asMember('POST', `${T}/entries`, { ticketId: fresh.ticket.id, durationMinutes: 30 });
    const over = (await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/tickets/${fresh.ticket.id}/time-entries/summary-with-budget`)).body;
    expect(over).toMatchObject({ trackedMinutes: 135, remainingMinutes: 0, percentage: 112.5, isOverBudget: true });
    const unestimated = await createTicket(fresh.org, fresh.boardId, { title: 'No estimate' });
    expect((await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/tickets/${unestimated.id}/time-entries/summary-with-budget`)).body).toMatchObject({
      estimatedHours: null, remainingMinutes: null, percentage: null, isOverBudget: false, totalMinutes: 0,
    });
    // Another board's path, or a hidden board: 404.
    const otherBoard = (await createBoard(fresh.org, { name: 'Else', prefix: 'ELS' }));
    expect((await fresh.org.call('GET', `/api/v1/boards/${otherBoard.id}/tickets/${fresh.ticket.id}/time-entries/summary`)).status).toBe(404);
    expect((await fresh.asMember('GET', `/api/v1/boards/${otherBoard.id}/time-entries`)).status).toBe(404);
  });
});

describe('agent time: factor, approval, weekly cap', () => {
  it('keeps agent time PENDING and factored, notifies the owner, and lets an approver decide it once', async () => {
    const w = await world('Approval', { timeFactor: 1.5 });
    const created = await w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 40, description: 'Refactor' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ state: 'PENDING', rawDurationMinutes: 40, durationMinutes: 60, timeFactor: 1.5, user: { id: w.agent.id, isAgent: true } });
    const notifications = (await api('GET', '/api/v1/notifications', { token: w.owner.token, org: w.org.slug })).body.data;
    expect(notifications.find((n: any) => n.type === 'AGENT_TIME_PENDING')?.data).toMatchObject({ entryId: created.body.id, agentId: w.agent.id, displayId: w.ticket.displayId, durationMinutes: 60 });

    // The organization factor applies when the agent has none.
    await w.org.call('PATCH', '/api/v1/organization', { body: { settings: { defaultTimeFactor: 2 } } });
    await w.org.call('PATCH', `/api/v1/organizations/${w.org.orgId}/agents/${w.agent.id}`, { body: { timeFactor: null } });
    expect((await w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 7 })).body).toMatchObject({ durationMinutes: 14, timeFactor: 2 });

    const queue = await w.org.call('GET', `${T}/entries?state=PENDING`);
    expect(queue.body.total).toBe(2);
    expect(queue.body.data.every((entry: any) => entry.state === 'PENDING')).toBe(true);
    // A member's PENDING filter covers only their own entries.
    expect((await w.asMember('GET', `${T}/entries?state=PENDING`)).body.total).toBe(0);

    // Members do not hold time-tracking:approve; the agent never approves its own time.
    expect((await w.asMember('POST', `${T}/entries/${created.body.id}/approve`)).status).toBe(403);
    expect((await w.agent.call('POST', `${T}/entries/${created.body.id}/approve`)).status).toBe(403);
    const approved = await w.org.call('POST', `${T}/entries/${created.body.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ state: 'APPROVED', decidedBy: { id: w.org.adminId }, decidedAt: expect.any(String) });
    const again = await w.org.call('POST', `${T}/entries/${created.body.id}/reject`);
    expect(again.status).toBe(409);
    expect(again.body.error.details.state).toBe('APPROVED');

    // An approved agent entry is changed only by an approver.
    expect((await w.agent.call('PATCH', `${T}/entries/${created.body.id}`, { durationMinutes: 1 })).status).toBe(403);
    expect((await w.agent.call('DELETE', `${T}/entries/${created.body.id}`)).status).toBe(403);
    const fixed = await w.org.call('PATCH', `${T}/entries/${created.body.id}`, { body: { durationMinutes: 20 } });
    expect(fixed.body).toMatchObject({ rawDurationMinutes: 20, durationMinutes: 30, timeFactor: 1.5 });
    // Rejected entries stay as decided.
    const pendingOne = queue.body.data.find((entry: any) => entry.id !== created.body.id);
    const rejected = await w.org.call('POST', `${T}/entries/${pendingOne.id}/reject`, { body: { reason: 'Duplicate' } });
    expect(rejected.body).toMatchObject({ state: 'REJECTED', rejectionReason: 'Duplicate' });
    expect((await w.org.call('PATCH', `${T}/entries/${pendingOne.id}`, { body: { durationMinutes: 3 } })).status).toBe(409);
    const kinds = (await w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets/${w.ticket.id}/timeline?limit=100`)).body.data.map((e: any) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['TIME_LOGGED', 'TIME_APPROVED', 'TIME_REJECTED', 'TIME_UPDATED']));
  });

  it('gives an approver who is no administrator the entries of the boards they see, and nothing of others', async () => {
    const w = await world('Approvers');
    const group = (await w.org.call('POST', '/api/v1/permission-groups', { body: { name: 'Approvers', color: '#123456', permissions: ['time-tracking:view', 'time-tracking:manage', 'time-tracking:approve'] } })).body;
    const approver = await createMember(w.org, { name: 'Ann Approver', permissionGroupIds: [group.id] });
    const asApprover = (method: string, path: string) => api(method, path, { token: approver.token, org: w.org.slug });
    const hidden = (await createBoard(w.org, { name: 'Hidden work', prefix: 'HDN' }));
    await w.org.call('POST', `/api/v1/boards/${hidden.id}/members`, { body: { userId: w.agent.id } });
    const secret = await createTicket(w.org, hidden.id, { title: 'Secret project' });
    await w.org.call('POST', `/api/v1/boards/${w.boardId}/members`, { body: { userId: approver.id } });
    const seen = (await w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 10 })).body;
    const unseen = (await w.agent.call('POST', `${T}/entries`, { ticketId: secret.id, durationMinutes: 10 })).body;

    const queue = await asApprover('GET', `${T}/entries?state=PENDING`);
    expect(queue.body.data.map((entry: any) => entry.id)).toEqual([seen.id]);
    expect(JSON.stringify(queue.body)).not.toContain('Secret project');
    expect((await asApprover('GET', `${T}/entries?userId=${w.agent.id}`)).body.total).toBe(1);
    expect((await asApprover('POST', `${T}/entries/${unseen.id}/approve`)).status).toBe(404);
    expect((await asApprover('POST', `${T}/entries/${seen.id}/approve`)).status).toBe(200);
    // An administrator sees and decides both.
    expect((await w.org.call('GET', `${T}/entries?state=PENDING`)).body.data.map((entry: any) => entry.id)).toEqual([unseen.id]);
  });

  it('refuses an entry or a timer stop that would pass the weekly cap, counting pending and approved minutes of the ISO week', async () => {
    const w = await world('Cap', { weeklyHoursCap: 2 });
    const monday = '2026-11-23';
    const sunday = '2026-11-29';
    const nextMonday = '2026-11-30';
    expect([isoWeekOf(monday), isoWeekOf(sunday), isoWeekOf(nextMonday)]).toEqual(['2026-W48', '2026-W48', '2026-W49']);
    const book = (minutes: number, date: string) => w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: minutes, date });

    const first = await book(60, monday);
    expect(first.status).toBe(201);
    await w.org.call('POST', `${T}/entries/${first.body.id}/approve`);
    expect((await book(45, sunday)).status).toBe(201);
    const before = await timeState(w.org.orgId, [w.agent.id]);
    const refused = await book(20, sunday);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'WEEKLY_HOURS_CAP_REACHED', details: { cap: 2, used: 1.75, requested: 0.33 } });
    expect(await timeState(w.org.orgId, [w.agent.id])).toBe(before);
    // The next ISO week starts on Monday: its cap is whole again.
    expect((await book(120, nextMonday)).status).toBe(201);
    expect((await book(15, sunday)).status).toBe(201);
    expect((await book(1, sunday)).status).toBe(403);
    expect((await book(121, '2026-12-07')).body.error).toMatchObject({ code: 'WEEKLY_HOURS_CAP_REACHED', details: { used: 0 } });

    // Rejecting frees the minutes; so does deleting.
    const pending = (await w.org.call('GET', `${T}/entries?state=PENDING&userId=${w.agent.id}&year=2026&month=11`)).body.data;
    const sundayEntry = pending.find((entry: any) => entry.durationMinutes === 45);
    await w.org.call('POST', `${T}/entries/${sundayEntry.id}/reject`);
    expect((await book(45, sunday)).status).toBe(201);

    // A timer stop that would pass the cap is refused and the timer keeps running.
    const timer = (await w.agent.call('POST', `${T}/timers`, { ticketId: w.ticket.id })).body;
    const week = isoWeekOf(timer.startedAt.slice(0, 10));
    await db().entities.agentWeek.update({ orgId: w.org.orgId, agentId: w.agent.id, week }).set({ minutes: 120 }).go();
    const stopped = await w.agent.call('POST', `${T}/timers/${timer.id}/stop`, {});
    expect(stopped.status).toBe(403);
    expect(stopped.body.error.code).toBe('WEEKLY_HOURS_CAP_REACHED');
    expect((await w.agent.call('GET', `${T}/timers`)).body.map((t: any) => t.id)).toEqual([timer.id]);
  });

  it('decides a pending entry once under concurrent approvals and rejections, and stops a timer into exactly one entry', async () => {
    const w = await world('Once');
    const entry = (await w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 10 })).body;
    const decisions = await Promise.all(
      Array.from({ length: 6 }, (_, index) => w.org.call('POST', `${T}/entries/${entry.id}/${index % 2 === 0 ? 'approve' : 'reject'}`, { body: index % 2 === 0 ? undefined : {} })),
    );
    expect(decisions.filter((response) => response.status === 200)).toHaveLength(1);
    for (const refused of decisions.filter((response) => response.status !== 200)) expect(refused.status).toBe(409);
    const winner = decisions.find((response) => response.status === 200)!.body.state;
    const overview = (await w.org.call('GET', `/api/v1/organizations/${w.org.orgId}/agents/overview`)).body;
    expect(overview.agents[0].pendingTime).toEqual({ count: 0, minutes: 0 });
    expect(overview.agents[0].approvedMinutesThisMonth).toBe(winner === 'APPROVED' ? 10 : 0);

    const timer = (await w.asMember('POST', `${T}/timers`, { ticketId: w.ticket.id })).body;
    const stops = await Promise.all(Array.from({ length: 4 }, () => w.asMember('POST', `${T}/timers/${timer.id}/stop`, {})));
    expect(stops.filter((response) => response.status === 200)).toHaveLength(1);
    for (const refused of stops.filter((response) => response.status !== 200)) expect([404, 409]).toContain(refused.status);
    expect((await w.asMember('GET', `${T}/entries`)).body.total).toBe(1);
  });

  it('never lets concurrent entries pass the cap together', async () => {
    const w = await world('Race', { weeklyHoursCap: 3 });
    const date = '2026-10-14';
    const results = await Promise.all(Array.from({ length: 8 }, () => w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 60, date })));
    const accepted = results.filter((r) => r.status === 201);
    expect(accepted.length).toBeLessThanOrEqual(3);
    for (const refused of results.filter((r) => r.status !== 201)) expect(['WEEKLY_HOURS_CAP_REACHED', 'CONFLICT']).toContain(refused.body.error.code);
    const counter = (await db().entities.agentWeek.get({ orgId: w.org.orgId, agentId: w.agent.id, week: isoWeekOf(date) }).go()).data;
    expect(counter?.minutes).toBe(accepted.length * 60);
    const stored = (await w.org.call('GET', `${T}/entries?userId=${w.agent.id}`)).body.total;
    expect(stored).toBe(accepted.length);
    // Whatever the race left, the cap fills exactly to 3 hours and no further.
    for (let booked = accepted.length; booked < 3; booked += 1) expect((await w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 60, date })).status).toBe(201);
    expect((await w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 1, date })).status).toBe(403);
  });

  it('gives the agents overview its time figures from the maintained aggregates', async () => {
    const w = await world('Overview', { timeFactor: 2 });
    const overview = async () => (await w.org.call('GET', `/api/v1/organizations/${w.org.orgId}/agents/overview`)).body;
    const a = (await w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 30 })).body;
    const b = (await w.agent.call('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 10 })).body;
    await w.asMember('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 40 });
    let figures = await overview();
    expect(figures.totals).toMatchObject({ minutesBookedThisMonth: 40, agentMinutesThisMonth: 0, humanMinutesThisMonth: 40, agentMinutesShare: 0, pendingAgentMinutes: 80 });
    expect(figures.agents[0]).toMatchObject({ pendingTime: { count: 2, minutes: 80 }, approvedMinutesThisMonth: 0 });

    await w.org.call('POST', `${T}/entries/${a.id}/approve`);
    await w.org.call('POST', `${T}/entries/${b.id}/reject`);
    figures = await overview();
    expect(figures.totals).toMatchObject({ minutesBookedThisMonth: 100, agentMinutesThisMonth: 60, humanMinutesThisMonth: 40, agentMinutesShare: 0.6, pendingAgentMinutes: 0 });
    expect(figures.agents[0]).toMatchObject({ pendingTime: { count: 0, minutes: 0 }, approvedMinutesThisMonth: 60 });

    await w.org.call('DELETE', `${T}/entries/${a.id}`);
    figures = await overview();
    expect(figures.totals).toMatchObject({ minutesBookedThisMonth: 40, agentMinutesThisMonth: 0, agentMinutesShare: 0 });
    expect(figures.agents[0].approvedMinutesThisMonth).toBe(0);
  });
});

describe('booking items', () => {
  it('are managed by administrators and filtered by board, name and state', async () => {
    const w = await world('Booking');
    const other = (await createBoard(w.org, { name: 'Other', prefix: 'OTH' }));
    const everywhere = await w.org.call('POST', `${T}/booking-items`, { body: { name: 'Internal meetings', externalId: 'ACC-1' } });
    expect(everywhere.status).toBe(201);
    expect(everywhere.body).toEqual({ id: expect.stringMatching(/^bki_/), name: 'Internal meetings', externalId: 'ACC-1', boardIds: [], isActive: true, createdAt: expect.any(String), updatedAt: expect.any(String) });
    const scoped = (await w.org.call('POST', `${T}/booking-items`, { body: { name: 'Customer support', boardIds: [other.id] } })).body;
    expectValidationError(await w.org.call('POST', `${T}/booking-items`, { body: { name: 'Bad', boardIds: ['brd_NOPE'] } }), 'boardIds.0');
    expectValidationError(await w.org.call('POST', `${T}/booking-items`, { body: { name: 'x'.repeat(201) } }), 'name');

    const names = async (query: string) => (await w.asMember('GET', `${T}/booking-items${query}`)).body.map((item: any) => item.name);
    expect(await names('')).toEqual(['Customer support', 'Internal meetings']);
    expect(await names(`?boardId=${w.boardId}`)).toEqual(['Internal meetings']);
    expect(await names(`?boardId=${other.id}`)).toEqual(['Customer support', 'Internal meetings']);
    expect(await names('?q=SUPP')).toEqual(['Customer support']);

    const patched = await w.org.call('PATCH', `${T}/booking-items/${scoped.id}`, { body: { isActive: false, externalId: null, name: 'Support' } });
    expect(patched.body).toMatchObject({ name: 'Support', isActive: false, externalId: null });
    expect(await names('?isActive=true')).toEqual(['Internal meetings']);
    expect((await w.asMember('PATCH', `${T}/booking-items/${scoped.id}`, { name: 'Mine' })).status).toBe(403);
    expect((await w.asMember('DELETE', `${T}/booking-items/${scoped.id}`)).status).toBe(403);
    expect((await w.org.call('DELETE', `${T}/booking-items/${scoped.id}`)).status).toBe(204);
    expect((await w.org.call('DELETE', `${T}/booking-items/${scoped.id}`)).status).toBe(404);
    expect((await w.org.call('PATCH', `${T}/booking-items/${scoped.id}`, { body: { name: 'Back' } })).status).toBe(404);
  });
});

describe('time tracking and token restrictions', () => {
  it('pages a person\'s entries from their index exactly as the whole list does, with every filter and a board-limited token', async () => {
    const w = await world('Index pages');
    const other = await createBoard(w.org, { name: 'Second', prefix: 'IDX' });
    await w.org.call('POST', `/api/v1/boards/${other.id}/members`, { body: { userId: w.member.id } });
    const elsewhere = await createTicket(w.org, other.id, { title: 'Elsewhere' });
    const dates = ['2025-06-03', '2025-06-01', '2025-06-03', '2025-05-30', '2025-07-02', '2025-06-03', '2025-06-02'];
    for (const [index, date] of dates.entries()) {
      const ticketId = index % 3 === 0 ? elsewhere.id : w.ticket.id;
      expect((await w.asMember('POST', `${T}/entries`, { ticketId, durationMinutes: 5 + index, date, description: `work ${index}` })).status).toBe(201);
    }
    const limited = await createToken(w.org, w.member.token, { allowedBoardIds: [w.boardId] });
    const callers: [string, (path: string) => Promise<any>][] = [
      ['the person', (path) => w.asMember('GET', path)],
      ['a board-limited token', (path) => api('GET', path, { token: limited.token, org: w.org.slug })],
      ['an administrator', (path) => w.org.call('GET', `${path}&userId=${w.member.id}`)],
    ];
    // A search reads every entry (it matches ticket titles): every entry's description has "work".
    for (const [who, get] of callers) {
      for (const filter of ['', `boardId=${other.id}`, 'state=APPROVED', 'state=PENDING', 'year=2025&month=6', `year=2025&month=6&boardId=${w.boardId}`]) {
        for (const page of [1, 3]) {
          const path = `${T}/entries?limit=2&page=${page}${filter ? `&${filter}` : ''}`;
          const indexed = (await get(path)).body;
          const whole = (await get(`${path}&search=work`)).body;
          expect({ total: indexed.total, ids: indexed.data.map((entry: any) => entry.id) }, `${who}: ${filter} page ${page}`).toEqual({ total: whole.total, ids: whole.data.map((entry: any) => entry.id) });
        }
      }
    }
    expect((await w.asMember('GET', `${T}/entries?limit=100`)).body.total).toBe(7);
    expect((await api('GET', `${T}/entries?limit=100`, { token: limited.token, org: w.org.slug })).body.total).toBe(4);
  });

  it('pages the approvers\' queue from its index exactly as the whole read does, for every approver', async () => {
    const w = await world('Queue pages');
    const other = await createBoard(w.org, { name: 'Other work', prefix: 'QPO' });
    await w.org.call('POST', `/api/v1/boards/${other.id}/members`, { body: { userId: w.agent.id } });
    const elsewhere = await createTicket(w.org, other.id, { title: 'Elsewhere' });
    const item = (await w.org.call('POST', `${T}/booking-items`, { body: { name: 'Meetings' } })).body;
    const dates = ['2025-06-03', '2025-06-01', '2025-06-03', '2025-05-30', '2025-07-02', '2025-06-03', '2025-06-02', '2025-06-05'];
    for (const [index, date] of dates.entries()) {
      const target = index % 4 === 3 ? { bookingItemId: item.id } : { ticketId: index % 3 === 0 ? elsewhere.id : w.ticket.id };
      expect((await w.agent.call('POST', `${T}/entries`, { ...target, durationMinutes: 5 + index, date, description: `work ${index}` })).status).toBe(201);
    }
    // One entry decided: it leaves the queue.
    const decided = (await w.org.call('GET', `${T}/entries?state=PENDING&limit=1`)).body.data[0];
    expect((await w.org.call('POST', `${T}/entries/${decided.id}/approve`)).status).toBe(200);
    const group = (await w.org.call('POST', '/api/v1/permission-groups', { body: { name: 'Queue approvers', color: '#123456', permissions: ['time-tracking:view', 'time-tracking:approve'] } })).body;
    const approver = await createMember(w.org, { name: 'Quinn Approver', permissionGroupIds: [group.id] });
    await w.org.call('POST', `/api/v1/boards/${w.boardId}/members`, { body: { userId: approver.id } });
    const limited = await createToken(w.org, w.org.adminToken, { allowedBoardIds: [other.id] });
    const callers: [string, (path: string) => Promise<any>][] = [
      ['an administrator', (path) => w.org.call('GET', path)],
      ['a board-limited administrator token', (path) => api('GET', path, { token: limited.token, org: w.org.slug })],
      ['an approver who sees one board', (path) => api('GET', path, { token: approver.token, org: w.org.slug })],
    ];
    const expectSameAsWholeRead = async () => {
      for (const [who, get] of callers) {
        for (const filter of ['', `boardId=${other.id}`, 'year=2025&month=6', `year=2025&month=6&boardId=${w.boardId}`]) {
          for (const page of [1, 2, 4]) {
            const path = `${T}/entries?state=PENDING&limit=2&page=${page}${filter ? `&${filter}` : ''}`;
            const indexed = (await get(path)).body;
            // A search reads the queue whole (every description has "work").
            const whole = (await get(`${path}&search=work`)).body;
            expect({ total: indexed.total, ids: indexed.data.map((entry: any) => entry.id) }, `${who}: ${filter} page ${page}`).toEqual({ total: whole.total, ids: whole.data.map((entry: any) => entry.id) });
          }
        }
      }
    };
    await expectSameAsWholeRead();
    expect((await w.org.call('GET', `${T}/entries?state=PENDING&limit=100`)).body.total).toBe(dates.length - 1);
    // The approver sees the entries of their board and the booking-item ones, not those of the other board.
    // (Of the seven left: three on the approver's board, two on the other, two on the booking item.)
    expect((await api('GET', `${T}/entries?state=PENDING&limit=100`, { token: approver.token, org: w.org.slug })).body.total).toBe(5);
    expect((await api('GET', `${T}/entries?state=PENDING&limit=100`, { token: limited.token, org: w.org.slug })).body.total).toBe(4);
  }, 120_000);

  it('keeps a board-limited token to its boards, and read-only tokens from writing', async () => {
    const w = await world('Tokens');
    const other = (await createBoard(w.org, { name: 'Second', prefix: 'SEC' }));
    await w.org.call('POST', `/api/v1/boards/${other.id}/members`, { body: { userId: w.member.id } });
    const elsewhere = await createTicket(w.org, other.id, { title: 'Elsewhere' });
    await w.asMember('POST', `${T}/entries`, { ticketId: elsewhere.id, durationMinutes: 5 });
    const limited = await createToken(w.org, w.member.token, { allowedBoardIds: [w.boardId] });
    const asLimited = (method: string, path: string, body?: unknown) => api(method, path, { token: limited.token, org: w.org.slug, ...(body ? { body } : {}) });
    expect((await asLimited('POST', `${T}/entries`, { ticketId: elsewhere.id, durationMinutes: 5 })).status).toBe(404);
    expect((await asLimited('GET', `${T}/entries`)).body.total).toBe(0);
    expect((await asLimited('POST', `${T}/entries`, { ticketId: w.ticket.id, durationMinutes: 5 })).status).toBe(201);
    const readOnly = await createToken(w.org, w.member.token, { readOnly: true });
    const refused = await api('POST', `${T}/entries`, { token: readOnly.token, org: w.org.slug, body: { ticketId: w.ticket.id, durationMinutes: 5 } });
    expect(refused.status).toBe(403);
  });
});

describe('ticket time totals (TicketTime)', () => {
  it('summarize a ticket as its entries do, through every entry change', async () => {
    const fresh = await world('Totals');
    const second = await createTicket(fresh.org, fresh.boardId, { title: 'Second', estimatedHours: 1 });
    const post = async (call: (method: string, path: string, body?: unknown) => Promise<any>, body: Record<string, unknown>) => {
      const answer = await call('POST', `${T}/entries`, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body;
    };
    const admin = (method: string, path: string, body?: unknown) => fresh.org.call(method, path, body === undefined ? {} : { body });
    const a = await post(fresh.asMember, { ticketId: fresh.ticket.id, durationMinutes: 40 });
    await post(fresh.asMember, { ticketId: second.id, durationMinutes: 15 });
    const b = await post(admin, { ticketId: fresh.ticket.id, durationMinutes: 25, date: '2025-03-03' });
    const c = await post(fresh.agent.call, { ticketId: fresh.ticket.id, durationMinutes: 20 });
    const d = await post(fresh.agent.call, { ticketId: fresh.ticket.id, durationMinutes: 35 });
    const e = await post(fresh.agent.call, { ticketId: second.id, durationMinutes: 5 });
    expect((await admin('PATCH', `${T}/entries/${a.id}`, { durationMinutes: 50 })).status).toBe(200);
    expect((await admin('POST', `${T}/entries/${c.id}/approve`)).status).toBe(200);
    expect((await admin('POST', `${T}/entries/${d.id}/reject`, { reason: 'Not this one' })).status).toBe(200);
    expect((await admin('DELETE', `${T}/entries/${b.id}`)).status).toBe(204);
    expect((await admin('PATCH', `${T}/entries/${e.id}`, { durationMinutes: 9 })).status).toBe(200);
    const summaries = async () => {
      const answers = [];
      for (const ticketId of [fresh.ticket.id, second.id]) {
        for (const kind of ['summary', 'summary-with-budget']) answers.push((await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/tickets/${ticketId}/time-entries/${kind}`)).body);
      }
      return answers;
    };
    /** The summary of a ticket as its listed entries add up (the list reads the entries themselves, by date). */
    const fromEntries = async (ticketId: string) => {
      const entries = (await fresh.asMember('GET', `/api/v1/boards/${fresh.boardId}/tickets/${ticketId}/time-entries?limit=100`)).body.data as any[];
      const byState: Record<string, { count: number; minutes: number }> = { PENDING: { count: 0, minutes: 0 }, APPROVED: { count: 0, minutes: 0 }, REJECTED: { count: 0, minutes: 0 } };
      const byUser = new Map<string, number>();
      for (const entry of entries) {
        byState[entry.state]!.count += 1;
        byState[entry.state]!.minutes += entry.durationMinutes;
        if (entry.state !== 'REJECTED') byUser.set(entry.user.id, (byUser.get(entry.user.id) ?? 0) + entry.durationMinutes);
      }
      const counted = byState.PENDING!.minutes + byState.APPROVED!.minutes;
      return { ticketId, totalMinutes: counted, entryCount: byState.PENDING!.count + byState.APPROVED!.count, byState, byUser: Object.fromEntries(byUser) };
    };
    const expectTotalsToMatchEntries = async () => {
      const answers = await summaries();
      for (const [index, ticketId] of [fresh.ticket.id, second.id].entries()) {
        const summary = answers[index * 2];
        const expected = await fromEntries(ticketId);
        expect({ ...summary, byUser: Object.fromEntries(summary.byUser.map((line: any) => [line.userId, line.minutes])) }).toEqual(expected);
        // The summary against the estimate carries the same totals.
        expect(answers[index * 2 + 1]).toMatchObject({ totalMinutes: expected.totalMinutes });
      }
      return answers;
    };
    const first = await expectTotalsToMatchEntries();
    expect(first[0]).toMatchObject({ totalMinutes: 50 + 20, byState: { REJECTED: { count: 1, minutes: 35 } } });
    // More changes: a new entry, an edit.
    await post(fresh.asMember, { ticketId: second.id, durationMinutes: 7 });
    expect((await admin('PATCH', `${T}/entries/${a.id}`, { durationMinutes: 55 })).status).toBe(200);
    const second2 = await expectTotalsToMatchEntries();
    expect(second2[0]).toMatchObject({ totalMinutes: 55 + 20 });
  }, 120_000);
});
