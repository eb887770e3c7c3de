import type { OrgFixture } from '../../support/fixtures.js';
import { db } from '../../../lib/db/service.js';
import { call, freshTicket, post, suffix, type Probe } from '../../support/round-trips.js';

/** Claims (docs/claims.md) and notifications: auth, ticket read ∥ configuration, one transaction. */
export function claimProbes(): Record<string, Probe> {
  const claim = (org: OrgFixture, ticketId: string, rest = '') => `/api/v1/boards/${org.boardId}/tickets/${ticketId}/claim${rest}`;
  const claimed = async (org: OrgFixture) => {
    const ticket = await freshTicket(org);
    await post(org, claim(org, ticket.id), {});
    return ticket;
  };
  return {
    // Auth, the ticket ∥ its latest handoff (every claim answer carries it), the transaction.
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim': { budget: 4, run: async (org) => org.call('POST', claim(org, (await freshTicket(org)).id), { body: {} }) },
    // Auth, boards ∥ configuration, each board's ready queue ∥ the lapsed claims, then the transaction claiming the first
    // candidate, decided from the queue's copy of the ticket (a ticket that never had a handoff needs no handoff read).
    'POST /api/v1/claims/next': {
      budget: 6,
      run: async (org) => {
        const inProgress = org.statusIds[2]!;
        await freshTicket(org, { statusId: inProgress, priority: 'critical' });
        return org.call('POST', '/api/v1/claims/next', { body: { boardIds: [org.boardId] } });
      },
    },
    'GET /api/v1/boards/{boardId}/tickets/{ticketId}/handoffs': { budget: 3, run: call('GET /api/v1/boards/{boardId}/tickets/{ticketId}/handoffs') },
    // Auth, board and ticket ∥ configuration, the dependencies, the tickets they name.
    'GET /api/v1/boards/{boardId}/tickets/{ticketId}/dependencies': { budget: 5, run: call('GET /api/v1/boards/{boardId}/tickets/{ticketId}/dependencies') },
    // Auth, board and ticket ∥ configuration, the blocker ∥ the ticket's dependencies, one Query per ticket the cycle check walks, the transaction.
    'PUT /api/v1/boards/{boardId}/tickets/{ticketId}/dependencies/{blockerId}': {
      budget: 8,
      run: async (org) => {
        const [ticket, blocker] = [await freshTicket(org), await freshTicket(org)];
        return org.call('PUT', `/api/v1/boards/${org.boardId}/tickets/${ticket.id}/dependencies/${blocker.id}`);
      },
    },
    'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/dependencies/{blockerId}': {
      budget: 4,
      run: async (org) => {
        const [ticket, blocker] = [await freshTicket(org), await freshTicket(org)];
        const added = await org.call('PUT', `/api/v1/boards/${org.boardId}/tickets/${ticket.id}/dependencies/${blocker.id}`);
        if (added.status !== 200) throw new Error(`dependency: ${added.status}`);
        return org.call('DELETE', `/api/v1/boards/${org.boardId}/tickets/${ticket.id}/dependencies/${blocker.id}`);
      },
    },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/heartbeat': {
      budget: 3,
      run: async (org) => org.call('POST', claim(org, (await claimed(org)).id, '/heartbeat'), { body: { extendSeconds: 600 } }),
    },
    // Auth, board and ticket ∥ configuration, the transaction (ticket, timeline, event, activity, the spend items); no budget: no budget read.
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/reports': {
      budget: 4,
      run: async (org) => org.call('POST', claim(org, (await claimed(org)).id).replace(/\/claim$/, '/reports'), { body: { outcome: 'partial', summary: 'Run', usage: { costMicros: 1200, inputTokens: 10 } } }),
    },
    // Auth, one Query of the grouping's days in range.
    'GET /api/v1/spend': { budget: 2, run: call('GET /api/v1/spend') },
    // Auth, board and ticket, the transaction.
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/directive': {
      budget: 3,
      run: async (org) => org.call('POST', claim(org, (await claimed(org)).id, '/directive'), { body: { action: 'pause' } }),
    },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/messages': {
      budget: 3,
      run: async (org) => org.call('POST', claim(org, (await claimed(org)).id, '/messages'), { body: { text: 'Note' } }),
    },
    // Auth, board and ticket, the transaction (ticket, its quarantine entry).
    'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/quarantine': {
      budget: 3,
      run: async (org) => {
        const ticket = await freshTicket(org);
        const { data } = await db().entities.ticket.get({ ticketId: ticket.id }).go({ consistent: true });
        await db().entities.ticket.put({ ...data!, quarantinedAt: new Date().toISOString(), quarantineLapses: 3, consecutiveLapses: 3 }).go();
        return org.call('DELETE', `/api/v1/boards/${org.boardId}/tickets/${ticket.id}/quarantine`);
      },
    },
    'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/claim': {
      budget: 3,
      run: async (org) => org.call('DELETE', claim(org, (await claimed(org)).id), { body: { reason: 'done' } }),
    },
    'GET /api/v1/notifications': { budget: 2, run: call('GET /api/v1/notifications') },
    // Authentication; the pending suggestions ∥ the configuration (two pages here); their tickets (an administrator reads no board).
    'GET /api/v1/suggestions': { budget: 4, run: call('GET /api/v1/suggestions') },
    'POST /api/v1/notifications/{notificationId}/read': {
      budget: 2,
      run: async (org) => {
        const notificationId = `ntf_${suffix()}`;
        await db()
          .entities.notification.create({ orgId: org.orgId, userId: org.adminId, notificationId, type: 'TICKET_CLAIM_EXPIRED', data: {}, createdAt: new Date().toISOString(), ttl: Math.floor(Date.now() / 1000) + 3600 })
          .go();
        return org.call('POST', `/api/v1/notifications/${notificationId}/read`);
      },
    },
  };
}
