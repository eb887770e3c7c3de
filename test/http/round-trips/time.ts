import { api } from '../../support/api.js';
import type { OrgFixture } from '../../support/fixtures.js';
import { call, freshTicket, pendingAgentEntry, post, suffix, type Probe } from '../../support/round-trips.js';

export function timeProbes(): Record<string, Probe> {
  const tt = '/api/v1/time-tracking';
  const entry = (org: OrgFixture) => post(org, `${tt}/entries`, { ticketId: org.ticketId, durationMinutes: 5 });
  return {
    // auth; the timers (one Query); their tickets and items (one BatchGetItem).
    [`GET ${tt}/timers`]: { budget: 3, run: call(`GET ${tt}/timers`) },
    // auth; the ticket; its board; the conditional create.
    [`POST ${tt}/timers`]: { budget: 4, run: async (org) => org.call('POST', `${tt}/timers`, { body: { ticketId: (await freshTicket(org)).id } }) },
    // auth; the caller's timers; the ticket with the sync endpoint; the board; one transaction (entry, timer, aggregates, timeline).
    [`POST ${tt}/timers/{timerId}/stop`]: {
      budget: 5,
      run: async (org) => {
        const timer = await post(org, `${tt}/timers`, { ticketId: (await freshTicket(org)).id });
        return org.call('POST', `${tt}/timers/${timer.id}/stop`, { body: {} });
      },
    },
    // As a stop per timer, after one Query of the timers (the member runs one).
    [`POST ${tt}/timers/stop-all`]: {
      budget: 5,
      run: async (org) => {
        await api('POST', `${tt}/timers`, { token: org.memberToken, org: org.slug, body: { ticketId: (await freshTicket(org)).id } });
        return api('POST', `${tt}/timers/stop-all`, { token: org.memberToken, org: org.slug, body: {} });
      },
    },
    // auth; the caller's entries (one Query); their tickets and items.
    // auth; the page from the user's index end ∥ its COUNT; the page's tickets and items.
    [`GET ${tt}/entries`]: { budget: 4, run: call(`GET ${tt}/entries`) },
    // auth; the ticket with the sync endpoint; the board; one transaction.
    [`POST ${tt}/entries`]: { budget: 4, run: (org) => org.call('POST', `${tt}/entries`, { body: { ticketId: org.ticketId, durationMinutes: 5 } }) },
    [`GET ${tt}/entries/recent`]: { budget: 3, run: call(`GET ${tt}/entries/recent`) },
    [`GET ${tt}/entries/today-by-ticket`]: { budget: 3, run: call(`GET ${tt}/entries/today-by-ticket`) },
    // auth; the entry with the sync endpoint; one transaction (entry, aggregates, timeline, push); the ticket shown.
    [`PATCH ${tt}/entries/{entryId}`]: { budget: 4, run: async (org) => org.call('PATCH', `${tt}/entries/${(await entry(org)).id}`, { body: { durationMinutes: 6 } }) },
    [`DELETE ${tt}/entries/{entryId}`]: { budget: 3, run: async (org) => org.call('DELETE', `${tt}/entries/${(await entry(org)).id}`) },
    [`POST ${tt}/entries/{entryId}/approve`]: { budget: 4, run: async (org) => org.call('POST', `${tt}/entries/${await pendingAgentEntry(org)}/approve`) },
    [`POST ${tt}/entries/{entryId}/reject`]: { budget: 4, run: async (org) => org.call('POST', `${tt}/entries/${await pendingAgentEntry(org)}/reject`, { body: {} }) },
    [`POST ${tt}/entries/{entryId}/resync`]: {
      budget: 4,
      run: async (org) => {
        await org.call('PUT', `${tt}/sync-endpoint`, { body: { url: 'https://booking.example.com/fixture' } });
        return org.call('POST', `${tt}/entries/${(await entry(org)).id}/resync`);
      },
    },
    [`GET ${tt}/booking-items`]: { budget: 2, run: call(`GET ${tt}/booking-items`) },
    [`POST ${tt}/booking-items`]: { budget: 2, run: (org) => org.call('POST', `${tt}/booking-items`, { body: { name: `Budget ${suffix()}` } }) },
    // auth; the item; the guarded replacement.
    [`PATCH ${tt}/booking-items/{bookingItemId}`]: { budget: 3, run: call(`PATCH ${tt}/booking-items/{bookingItemId}`, { externalId: 'ACC-9' }) },
    [`DELETE ${tt}/booking-items/{bookingItemId}`]: {
      budget: 2,
      run: async (org) => org.call('DELETE', `${tt}/booking-items/${(await post(org, `${tt}/booking-items`, { name: `Doomed ${suffix()}` })).id}`),
    },
    [`GET ${tt}/sync-endpoint`]: {
      budget: 2,
      run: async (org) => {
        await org.call('PUT', `${tt}/sync-endpoint`, { body: { url: 'https://booking.example.com/fixture' } });
        return org.call('GET', `${tt}/sync-endpoint`);
      },
    },
    // auth; the endpoint (consistent); the guarded put.
    [`PUT ${tt}/sync-endpoint`]: { budget: 3, run: call(`PUT ${tt}/sync-endpoint`, { url: 'https://booking.example.com/fixture' }) },
    [`DELETE ${tt}/sync-endpoint`]: {
      budget: 2,
      run: async (org) => {
        await org.call('PUT', `${tt}/sync-endpoint`, { body: { url: 'https://booking.example.com/fixture' } });
        return org.call('DELETE', `${tt}/sync-endpoint`);
      },
    },
    // auth; the board ∥ the page from the index's end ∥ the period's COUNT; the page's tickets and items.
    "GET /api/v1/boards/{boardId}/time-entries": { budget: 5, run: call('GET /api/v1/boards/{boardId}/time-entries') },
    // auth; the ticket (with its board) ∥ the page from its by-date index's end ∥ its COUNT (the ticket read serves the page).
    "GET /api/v1/boards/{boardId}/tickets/{ticketId}/time-entries": { budget: 4, atMost: true, run: call('GET /api/v1/boards/{boardId}/tickets/{ticketId}/time-entries') },
    "GET /api/v1/boards/{boardId}/tickets/{ticketId}/time-entries/summary": { budget: 3, run: call('GET /api/v1/boards/{boardId}/tickets/{ticketId}/time-entries/summary') },
    "GET /api/v1/boards/{boardId}/tickets/{ticketId}/time-entries/summary-with-budget": {
      budget: 3,
      run: call('GET /api/v1/boards/{boardId}/tickets/{ticketId}/time-entries/summary-with-budget'),
    },
  };
}
