import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONSOLE_DIST } from '../../web/build.js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { httpGroups, routeKeysOf } from '../../infra/route-table.js';
import { api, createMember, createToken, mailedToken, setPlan, signupOrg, uniqueSlug, type ApiResponse, type TestOrg, useInProcess } from '../support/api.js';
import { buildOrgFixture, pathFor, type OrgFixture } from '../support/fixtures.js';
import { db } from '../../lib/db/service.js';
import { indexTicketSearch } from '../../lib/tickets/search/index.js';
import { waitUntil } from '../support/wait.js';
import { systemClock } from '../../lib/core/clock.js';
import { codeFor, createGrant, oauthFetch, pkcePair } from '../support/oauth.js';
import { createAgent, createBoard, createBoardMember, createOrg, createTeam, createTicket } from '../support/factories.js';
import { boardSetup } from '../support/tickets.js';

// A matrix: in process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/**
 * The DynamoDB round trips each endpoint makes (authentication included), counted per request by
 * the runtime. docs/data-model.md explains each figure; the design's rule: authenticated
 * single-item GET ≤ 2, list ≤ 2 plus Query pages, create ≤ 2 plus the counter it needs. Every
 * route of the route table has an entry, and its ordinary request costs exactly its budget
 * (`atMost` marks the few whose budget covers a costlier case than the probe's). The scenarios
 * below hold the figures of particular cases (a rename, a collision, a second identical request).
 * This is the one file that asserts round trips (test/unit/idioms.test.ts holds that).
 */
interface Probe {
  budget: number;
  /** The probe's request costs at most the budget (which covers a costlier case). */
  atMost?: boolean;
  /** The status the probe expects; a 2xx unless given. */
  status?: number;
  /** Prepares what the request needs (not counted) and makes the measured request. */
  run(org: OrgFixture): Promise<ApiResponse>;
}

const call = (routeKey: string, body?: unknown) => (org: OrgFixture) => {
  const { method, path } = pathFor(routeKey, org);
  return org.call(method, path, { body });
};

async function post(org: TestOrg, path: string, body: unknown): Promise<any> {
  const response = await org.call('POST', path, { body });
  if (response.status !== 201) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const suffix = () => Math.random().toString(36).slice(2, 8);
const freshIp = () => `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
const oauthHost = (org: OrgFixture) => `${org.slug}.localhost:${new URL(inject('baseUrl')).port}`;

/** A request to an OAuth page on the organization's origin (form body, optional cookie), with its status, text and round trips. */
async function pageCall(org: OrgFixture, method: string, path: string, form?: string, cookie?: string): Promise<ApiResponse & { text: string }> {
  const response = await oauthFetch()(new URL(path, `http://${oauthHost(org)}`), {
    method,
    redirect: 'manual',
    headers: { ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(cookie ? { cookie } : {}) },
    ...(form ? { body: form } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: undefined, text, headers: response.headers, roundTrips: Number(response.headers.get('x-db-round-trips') ?? NaN) };
}

/** The console's script, by its hashed name in the built page. */
const consoleScript = (): string => /\/app\/assets\/([^"]+\.js)/.exec(readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8'))![1]!;

/** A route that answers a document rather than JSON, with its status and round trips. */
async function rawGet(path: string): Promise<ApiResponse> {
  const response = await fetch(new URL(path, inject('baseUrl')));
  await response.arrayBuffer();
  return { status: response.status, body: undefined, headers: response.headers, roundTrips: Number(response.headers.get("x-db-round-trips") ?? NaN) };
}

const probes: Record<string, Probe> = {
  'GET /healthz': { budget: 1, run: () => api('GET', '/healthz') },
  // The catalogue is a constant: authentication only.
  'GET /api/v1/webhook-endpoints/events': { budget: 1, run: (org) => org.call('GET', '/api/v1/webhook-endpoints/events') },
  // Unmatched requests are answered from the route table alone.
  $default: { budget: 0, status: 404, run: () => api('GET', '/api/v1/no-such-thing') },
  // The reference is built at synth (or by the local runtime): serving it reads nothing.
  'GET /': { budget: 0, run: () => api('GET', '/') },
  'GET /api/v1/openapi.json': { budget: 0, run: () => api('GET', '/api/v1/openapi.json') },
  'GET /docs': { budget: 0, run: () => rawGet('/docs') },
  'GET /docs/redoc.standalone.js': { budget: 0, run: () => rawGet('/docs/redoc.standalone.js') },
  // The console is built files: serving it reads nothing (the organization is the address's).
  'GET /app': { budget: 0, run: () => rawGet('/app?org=acme') },
  'GET /app/{page}': { budget: 0, run: () => rawGet('/app/fleet?org=acme') },
  'GET /app/{page}/{id}': { budget: 0, run: () => rawGet('/app/boards/brd_1?org=acme') },
  'GET /app/boards/{boardId}/tickets/{ticketId}': { budget: 0, run: () => rawGet('/app/boards/brd_1/tickets/tkt_1?org=acme') },
  'GET /app/assets/{file}': { budget: 0, run: () => rawGet(`/app/assets/${consoleScript()}`) },
  'POST /api/v1/auth/signup': {
    budget: 1,
    run: () => api('POST', '/api/v1/auth/signup', { body: { organizationName: 'Budget', slug: uniqueSlug('budget'), name: 'B', email: 'b@budget.test', password: 'budget password 1' } }),
  },
  'POST /api/v1/auth/login': {
    // organization; the throttling windows ∥ the e-mail; the user ∥ the windows' counts (for RateLimit); the session (with the windows' refund).
    budget: 6,
    run: (org) => api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: `admin@${org.slug}.test`, password: 'correct horse battery' } }),
  },
  'POST /api/v1/auth/logout': {
    budget: 2,
    run: async (org) => {
      const login = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email: `admin@${org.slug}.test`, password: 'correct horse battery' } });
      return api('POST', '/api/v1/auth/logout', { token: login.body.token, org: org.slug });
    },
  },
  'POST /api/v1/auth/password': {
    budget: 3,
    run: async (org) => {
      const member = await createMember(org);
      return api('POST', '/api/v1/auth/password', { token: member.token, org: org.slug, body: { currentPassword: 'member password 1', newPassword: 'member password 2' } });
    },
  },
  'GET /api/v1/users/me': { budget: 2, run: call('GET /api/v1/users/me') },
  'GET /api/v1/users': { budget: 2, run: call('GET /api/v1/users') },
  'POST /api/v1/users': { budget: 2, run: call('POST /api/v1/users', { name: 'New', email: `new-${suffix()}@budget.test`, password: 'new password 1', role: 'TEAM_MEMBER' }) },
  'GET /api/v1/users/{userId}': { budget: 2, run: call('GET /api/v1/users/{userId}') },
  'PATCH /api/v1/users/{userId}': { budget: 3, run: call('PATCH /api/v1/users/{userId}', { name: 'Renamed member' }) },
  'GET /api/v1/users/me/tokens': { budget: 2, run: call('GET /api/v1/users/me/tokens') },
  'POST /api/v1/users/me/tokens': { budget: 2, run: call('POST /api/v1/users/me/tokens', { name: 'budget' }) },
  'DELETE /api/v1/users/me/tokens/{tokenId}': {
    budget: 3,
    run: async (org) => org.call('DELETE', `/api/v1/users/me/tokens/${(await createToken(org, org.adminToken)).id}`),
  },
  // Authentication; the e-mail's reservation (not a member yet); the invitation; the message (the outbox, or SES when configured: no table trip).
  'POST /api/v1/invitations': { budget: 4, run: call('POST /api/v1/invitations', { email: `invitee-${suffix()}@budget.test` }) },
  'GET /api/v1/invitations': { budget: 2, run: call('GET /api/v1/invitations') },
  'DELETE /api/v1/invitations/{invitationId}': {
    budget: 2,
    run: async (org) => org.call('DELETE', `/api/v1/invitations/${(await post(org, '/api/v1/invitations', { email: `withdrawn-${suffix()}@budget.test` })).id}`),
  },
  // The organization; the invitation ∥ the organization's record; one transaction (invitation used, e-mail, user, session, group checks).
  'POST /api/v1/invitations/accept': {
    budget: 4,
    run: async (org) => {
      const email = `joiner-${suffix()}@budget.test`;
      await post(org, '/api/v1/invitations', { email });
      const { token } = await mailedToken(org.slug, email);
      return api('POST', '/api/v1/invitations/accept', { org: org.slug, body: { token, name: 'Joiner', password: 'joiner password 1' } });
    },
  },
  // The organization; the windows ∥ the e-mail; the user ∥ the organization's record; the reset; the message (an unknown address stops after the user, at 5).
  'POST /api/v1/auth/password-reset': {
    budget: 7,
    run: async (org) => api('POST', '/api/v1/auth/password-reset', { org: org.slug, body: { email: (await createMember(org)).email }, headers: { 'x-forwarded-for': freshIp() } }),
  },
  // The organization; the reset; the user; one transaction (reset used, password replaced).
  'POST /api/v1/auth/password-reset/confirm': {
    budget: 4,
    run: async (org) => {
      const member = await createMember(org);
      await api('POST', '/api/v1/auth/password-reset', { org: org.slug, body: { email: member.email }, headers: { 'x-forwarded-for': freshIp() } });
      const { token } = await mailedToken(org.slug, member.email);
      return api('POST', '/api/v1/auth/password-reset/confirm', { org: org.slug, body: { token, password: 'reset password 1' } });
    },
  },
  'GET /api/v1/platform/organizations/{slug}/outbox': { budget: 2, run: (org) => api('GET', `/api/v1/platform/organizations/${org.slug}/outbox`, { token: inject('platformAdminToken') }) },
  'GET /api/v1/organization': { budget: 1, run: call('GET /api/v1/organization') },
  'PATCH /api/v1/organization': { budget: 2, run: call('PATCH /api/v1/organization', { settings: { defaultTimeFactor: 1.2 } }) },
  'PUT /api/v1/organization/dispatch': { budget: 2, run: call('PUT /api/v1/organization/dispatch', { paused: false }) },
  'GET /api/v1/permission-groups': { budget: 2, run: call('GET /api/v1/permission-groups') },
  'POST /api/v1/permission-groups': { budget: 2, run: call('POST /api/v1/permission-groups', { name: 'Budget group', color: '#000000', permissions: [] }) },
  'GET /api/v1/permission-groups/{groupId}': { budget: 2, run: call('GET /api/v1/permission-groups/{groupId}') },
  'PATCH /api/v1/permission-groups/{groupId}': { budget: 3, run: call('PATCH /api/v1/permission-groups/{groupId}', { name: 'Renamed group' }) },
  'DELETE /api/v1/permission-groups/{groupId}': {
    budget: 4,
    run: async (org) => org.call('DELETE', `/api/v1/permission-groups/${(await post(org, '/api/v1/permission-groups', { name: 'Doomed', color: '#000000', permissions: [] })).id}`),
  },
  'PATCH /api/v1/platform/organizations/{slug}': {
    budget: 2,
    run: (org) => api('PATCH', `/api/v1/platform/organizations/${org.slug}`, { token: inject('platformAdminToken'), body: { plan: 'PRO' } }),
  },
  'GET /api/v1/boards': { budget: 2, run: call('GET /api/v1/boards') },
  'POST /api/v1/boards': { budget: 2, run: call('POST /api/v1/boards', { name: 'Budget board' }) },
  'GET /api/v1/boards/{boardId}': { budget: 2, run: call('GET /api/v1/boards/{boardId}') },
  'PATCH /api/v1/boards/{boardId}': { budget: 3, run: call('PATCH /api/v1/boards/{boardId}', { description: 'Changed' }) },
  'DELETE /api/v1/boards/{boardId}': {
    budget: 3,
    run: async (org) => org.call('DELETE', `/api/v1/boards/${(await post(org, '/api/v1/boards', { name: 'Doomed' })).id}`),
  },
  'POST /api/v1/boards/{boardId}/archive': { budget: 3, run: call('POST /api/v1/boards/{boardId}/archive') },
  'POST /api/v1/boards/{boardId}/unarchive': { budget: 3, run: call('POST /api/v1/boards/{boardId}/unarchive') },
  'POST /api/v1/boards/{boardId}/teams': {
    budget: 3,
    run: async (org) => org.call('POST', `/api/v1/boards/${org.boardId}/teams`, { body: { teamId: (await post(org, '/api/v1/teams', { name: `T ${suffix()}` })).id } }),
  },
  // 4 plus one Query per member who loses access (their tickets on the board).
  'DELETE /api/v1/boards/{boardId}/teams/{teamId}': {
    budget: 5,
    atMost: true,
    run: async (org) => {
      const team = await post(org, '/api/v1/teams', { name: `T ${suffix()}` });
      await org.call('POST', `/api/v1/boards/${org.boardId}/teams`, { body: { teamId: team.id } });
      return org.call('DELETE', `/api/v1/boards/${org.boardId}/teams/${team.id}`);
    },
  },
  'POST /api/v1/boards/{boardId}/members': {
    budget: 3,
    run: async (org) => org.call('POST', `/api/v1/boards/${org.boardId}/members`, { body: { userId: (await createMember(org)).id } }),
  },
  // 3 plus the Query for the member's tickets on the board (to flag them for reassignment).
  'DELETE /api/v1/boards/{boardId}/members/{userId}': {
    // The credential, the board with the user, the change with the flagging job (flagged in the background).
    budget: 3,
    run: async (org) => {
      const member = await createMember(org);
      await org.call('POST', `/api/v1/boards/${org.boardId}/members`, { body: { userId: member.id } });
      return org.call('DELETE', `/api/v1/boards/${org.boardId}/members/${member.id}`);
    },
  },
  'GET /api/v1/boards/{boardId}/statuses': { budget: 3, run: call('GET /api/v1/boards/{boardId}/statuses') },
  'PUT /api/v1/boards/{boardId}/statuses': { budget: 4, run: (org) => call('PUT /api/v1/boards/{boardId}/statuses', { statusIds: org.statusIds })(org) },
  'GET /api/v1/boards/{boardId}/transitions': { budget: 2, run: call('GET /api/v1/boards/{boardId}/transitions') },
  'PUT /api/v1/boards/{boardId}/transitions': {
    budget: 4,
    run: (org) => call('PUT /api/v1/boards/{boardId}/transitions', { rules: [{ fromStatusId: org.statusIds[0], toStatusIds: [org.statusIds[1]] }] })(org),
  },
  'GET /api/v1/statuses': { budget: 2, run: call('GET /api/v1/statuses') },
  // 3: one Query of the organization's statuses answers name and key uniqueness, the default order and the default switch.
  'POST /api/v1/statuses': { budget: 3, run: (org) => org.call('POST', '/api/v1/statuses', { body: { name: `Budget ${suffix()}`, color: '#000000' } }) },
  'POST /api/v1/statuses/reorder': {
    budget: 3,
    run: async (org) => {
      const current = (await org.call('GET', '/api/v1/statuses')).body.data.map((status: { id: string }) => status.id);
      return org.call('POST', '/api/v1/statuses/reorder', { body: { statusIds: current.reverse() } });
    },
  },
  'GET /api/v1/statuses/{statusId}': { budget: 2, run: call('GET /api/v1/statuses/{statusId}') },
  'PATCH /api/v1/statuses/{statusId}': { budget: 3, run: call('PATCH /api/v1/statuses/{statusId}', { color: '#445566' }) },
  'DELETE /api/v1/statuses/{statusId}': {
    budget: 3,
    run: async (org) => org.call('DELETE', `/api/v1/statuses/${(await post(org, '/api/v1/statuses', { name: `Doomed ${suffix()}`, color: '#000000' })).id}`),
  },
  'GET /api/v1/ticket-types': { budget: 2, run: call('GET /api/v1/ticket-types') },
  'GET /api/v1/ticket-types/default': { budget: 2, run: call('GET /api/v1/ticket-types/default') },
  'POST /api/v1/ticket-types': { budget: 3, run: (org) => org.call('POST', '/api/v1/ticket-types', { body: { name: `Budget ${suffix()}`, color: '#000000' } }) },
  'GET /api/v1/ticket-types/{typeId}': { budget: 2, run: call('GET /api/v1/ticket-types/{typeId}') },
  'PATCH /api/v1/ticket-types/{typeId}': { budget: 3, run: call('PATCH /api/v1/ticket-types/{typeId}', { color: '#445566' }) },
  'GET /api/v1/ticket-types/{typeId}/ticket-count': { budget: 2, run: call('GET /api/v1/ticket-types/{typeId}/ticket-count') },
  'DELETE /api/v1/ticket-types/{typeId}': {
    budget: 3,
    run: async (org) => org.call('DELETE', `/api/v1/ticket-types/${(await post(org, '/api/v1/ticket-types', { name: `Doomed ${suffix()}`, color: '#000000' })).id}`),
  },
  'GET /api/v1/teams': { budget: 2, run: call('GET /api/v1/teams') },
  'POST /api/v1/teams': { budget: 2, run: (org) => call('POST /api/v1/teams', { name: `Budget team ${suffix()}`, memberIds: [org.memberId] })(org) },
  'GET /api/v1/teams/{teamId}': { budget: 3, run: call('GET /api/v1/teams/{teamId}') },
  // 3 plus one write per board the team is assigned to (the fixture team is on one board).
  'PATCH /api/v1/teams/{teamId}': { budget: 4, run: call('PATCH /api/v1/teams/{teamId}', { color: '#445566' }) },
  // auth, the Query of the memberships, one transaction, the Query of the boards.
  'DELETE /api/v1/teams/{teamId}': {
    budget: 4,
    run: async (org) => org.call('DELETE', `/api/v1/teams/${(await post(org, '/api/v1/teams', { name: `Doomed ${suffix()}`, memberIds: [org.memberId] })).id}`),
  },
  'POST /api/v1/teams/{teamId}/members': {
    budget: 4,
    run: async (org) => org.call('POST', `/api/v1/teams/${org.teamId}/members`, { body: { userId: (await createMember(org)).id } }),
  },
  'DELETE /api/v1/teams/{teamId}/members/{userId}': {
    budget: 2,
    run: async (org) => {
      const member = await createMember(org);
      await org.call('POST', `/api/v1/teams/${org.teamId}/members`, { body: { userId: member.id } });
      return org.call('DELETE', `/api/v1/teams/${org.teamId}/members/${member.id}`);
    },
  },
  'GET /api/v1/customers': { budget: 2, run: call('GET /api/v1/customers') },
  'POST /api/v1/customers': { budget: 2, run: call('POST /api/v1/customers', { name: 'Budget customer' }) },
  'GET /api/v1/customers/{customerId}': { budget: 2, run: call('GET /api/v1/customers/{customerId}') },
  'PATCH /api/v1/customers/{customerId}': { budget: 3, run: call('PATCH /api/v1/customers/{customerId}', { phone: '+49 30 1234' }) },
  'POST /api/v1/customers/{customerId}/archive': { budget: 2, run: call('POST /api/v1/customers/{customerId}/archive') },
  'DELETE /api/v1/customers/{customerId}': {
    budget: 4,
    run: async (org) => org.call('DELETE', `/api/v1/customers/${(await post(org, '/api/v1/customers', { name: 'Doomed' })).id}`),
  },
  ...ticketProbes(),
  ...agentProbes(),
  ...claimProbes(),
};

/** Claims (spec §4.2) and notifications: auth, ticket read ∥ configuration, one transaction. */
function claimProbes(): Record<string, Probe> {
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

/** Agents (spec §4.14): management reads the agent, its owner and groups, and its token count. */
function agentProbes(): Record<string, Probe> {
  const a = '/api/v1/organizations/{orgId}/agents';
  const agentPath = (org: OrgFixture, id: string, rest = '') => `/api/v1/organizations/${org.orgId}/agents/${id}${rest}`;
  const newAgent = async (org: OrgFixture) => post(org, `/api/v1/organizations/${org.orgId}/agents`, { name: `Agent ${suffix()}` });
  return {
    // 3 plus one token Query per listed agent (the fixture holds one when this runs).
    [`GET ${a}`]: { budget: 4, run: call(`GET ${a}`) },
    // Users and the last 31 days of activity (2 parallel Queries), then one open-claims Query per agent (one here).
    [`GET ${a}/overview`]: { budget: 4, run: call(`GET ${a}/overview`) },
    [`POST ${a}`]: { budget: 4, run: call(`POST ${a}`, { name: 'Budget agent' }) },
    [`GET ${a}/policies`]: { budget: 2, run: call(`GET ${a}/policies`) },
    [`PATCH ${a}/policies`]: { budget: 3, run: call(`PATCH ${a}/policies`, { prsRequireHumanReview: true }) },
    [`GET ${a}/{agentId}`]: { budget: 4, run: call(`GET ${a}/{agentId}`) },
    [`PATCH ${a}/{agentId}`]: { budget: 5, run: call(`PATCH ${a}/{agentId}`, { description: 'Changed' }) },
    [`DELETE ${a}/{agentId}`]: { budget: 4, run: async (org) => org.call('DELETE', agentPath(org, (await newAgent(org)).id)) },
    [`GET ${a}/{agentId}/tokens`]: { budget: 3, run: call(`GET ${a}/{agentId}/tokens`) },
    [`POST ${a}/{agentId}/tokens`]: { budget: 4, run: async (org) => org.call('POST', agentPath(org, (await newAgent(org)).id, '/tokens'), { body: { name: 'budget' } }) },
    [`DELETE ${a}/{agentId}/tokens/{tokenId}`]: {
      budget: 4,
      run: async (org) => {
        const agent = await newAgent(org);
        const token = await post(org, agentPath(org, agent.id, '/tokens'), { name: 'doomed' });
        return org.call('DELETE', agentPath(org, agent.id, `/tokens/${token.id}`));
      },
    },
  };
}

/** A fresh ticket on the fixture board (setup, not measured). */
async function freshTicket(org: OrgFixture, body: Record<string, unknown> = {}): Promise<any> {
  return (await post(org, `/api/v1/boards/${org.boardId}/tickets`, { title: `Budget ${suffix()}`, ...body })).data;
}

const statusId = (org: OrgFixture, index: number) => org.statusIds[index]!;

/** A fresh ticket with a PENDING suggestion (written directly: setup, not measured). */
async function suggested(org: OrgFixture): Promise<{ ticketId: string; suggestionId: string }> {
  const ticket = await freshTicket(org);
  const suggestionId = `sug_${suffix()}`;
  const now = new Date().toISOString();
  await db()
    .entities.suggestion.create({
      ticketId: ticket.id, suggestionId, orgId: org.orgId, boardId: org.boardId, fromStatusId: ticket.status.id, toStatusId: statusId(org, 3),
      suggestedById: org.agentId, suggestedByName: 'Fixture agent', state: 'PENDING', createdAt: now, updatedAt: now,
    })
    .go();
  return { ticketId: ticket.id, suggestionId };
}

/**
 * Ticket routes. Reads of the ticket (one BatchGetItem of board + ticket) run in parallel with
 * the organization's configuration Query, so most single-ticket routes are auth + 2 parallel
 * reads + 1 transaction (3 sequential steps).
 */
function ticketProbes(): Record<string, Probe> {
  const t = '/api/v1/boards/{boardId}/tickets';
  const onTicket = (org: OrgFixture, ticketId: string, suffixPath: string) => `/api/v1/boards/${org.boardId}/tickets/${ticketId}${suffixPath}`;
  return {
    [`GET ${t}`]: { budget: 5, run: call(`GET ${t}`) },
    // auth; board ∥ configuration; the board's counter (only once every check passed); the transaction.
    [`POST ${t}`]: { budget: 5, run: call(`POST ${t}`, { title: 'Budget ticket' }) },
    [`GET ${t}/{ticketId}`]: { budget: 3, run: call(`GET ${t}/{ticketId}`) },
    [`PATCH ${t}/{ticketId}`]: { budget: 4, run: async (org) => org.call('PATCH', onTicket(org, (await freshTicket(org)).id, ''), { body: { priority: 'high' } }) },
    // As a write, and the Query of the tickets that wait for it (their readiness is recounted before the answer).
    [`DELETE ${t}/{ticketId}`]: { budget: 5, run: async (org) => org.call('DELETE', onTicket(org, (await freshTicket(org)).id, '')) },
    [`PATCH ${t}/{ticketId}/status`]: {
      budget: 4,
      run: async (org) => org.call('PATCH', onTicket(org, (await freshTicket(org)).id, '/status'), { body: { statusId: statusId(org, 2), reason: 'Started' } }),
    },
    [`PATCH ${t}/{ticketId}/assign`]: {
      budget: 5,
      run: async (org) => org.call('PATCH', onTicket(org, (await freshTicket(org)).id, '/assign'), { body: { assigneeId: org.memberId } }),
    },
    [`POST ${t}/{ticketId}/move`]: {
      budget: 5,
      run: async (org) => {
        const target = await post(org, '/api/v1/boards', { name: `Target ${suffix()}` });
        return org.call('POST', onTicket(org, (await freshTicket(org)).id, '/move'), { body: { targetBoardId: target.id } });
      },
    },
    [`POST ${t}/{ticketId}/transition`]: {
      budget: 4,
      run: async (org) => org.call('POST', onTicket(org, (await freshTicket(org)).id, '/transition'), { body: { toStatusId: statusId(org, 1), reason: 'Go' } }),
    },
    [`POST ${t}/{ticketId}/approve`]: { budget: 4, run: async (org) => org.call('POST', onTicket(org, (await freshTicket(org)).id, '/approve')) },
    [`GET ${t}/needing-reassignment`]: { budget: 5, atMost: true, run: call(`GET ${t}/needing-reassignment`) },
    [`PATCH ${t}/reorder`]: {
      budget: 4,
      run: async (org) => org.call('PATCH', `/api/v1/boards/${org.boardId}/tickets/reorder`, { body: { ticketId: (await freshTicket(org)).id, position: 1.5 } }),
    },
    [`PATCH ${t}/{ticketId}/inline`]: {
      budget: 4,
      run: async (org) => {
        const ticket = await freshTicket(org);
        return org.call('PATCH', onTicket(org, ticket.id, '/inline'), { body: { title: 'Inline', expectedUpdatedAt: ticket.updatedAt } });
      },
    },
    [`PUT ${t}/{ticketId}/custom-fields`]: {
      budget: 4,
      run: (org) => org.call('PUT', onTicket(org, org.ticketId, '/custom-fields'), { body: { values: [{ customFieldId: org.customFieldId, value: 'v' }] } }),
    },
    [`GET ${t}/{ticketId}/completion-check`]: { budget: 3, run: call(`GET ${t}/{ticketId}/completion-check`) },
    // Auth, board and ticket ∥ configuration ∥ its dependencies, then the blocking tickets (the fixture ticket waits for one).
    [`GET ${t}/{ticketId}/blocker`]: { budget: 5, run: call(`GET ${t}/{ticketId}/blocker`) },
    // auth; the ticket; its pull requests (one Query on gsi1).
    [`GET ${t}/{ticketId}/pull-requests`]: { budget: 3, run: call(`GET ${t}/{ticketId}/pull-requests`) },
    [`GET ${t}/{ticketId}/subtickets`]: { budget: 4, run: call(`GET ${t}/{ticketId}/subtickets`) },
    // The parent is read first, then the create path (counter ∥ configuration, transaction).
    [`POST ${t}/{ticketId}/subtickets`]: { budget: 5, run: call(`POST ${t}/{ticketId}/subtickets`, { title: 'Budget subticket' }) },
    [`PATCH ${t}/{ticketId}/subtickets/{subticketId}/status`]: {
      budget: 4,
      run: (org) => org.call('PATCH', onTicket(org, org.ticketId, `/subtickets/${org.subticketId}/status`), { body: { statusId: statusId(org, 3) } }),
    },
    [`POST ${t}/{ticketId}/convert-to-subticket`]: {
      budget: 4,
      run: async (org) => {
        const parent = await freshTicket(org);
        return org.call('POST', onTicket(org, (await freshTicket(org)).id, '/convert-to-subticket'), { body: { parentTicketId: parent.id } });
      },
    },
    [`POST ${t}/{ticketId}/promote-to-standalone`]: {
      budget: 5,
      run: async (org) => {
        const parent = await freshTicket(org);
        const child = (await post(org, `/api/v1/boards/${org.boardId}/tickets/${parent.id}/subtickets`, { title: 'Child' })).data;
        return org.call('POST', onTicket(org, child.id, '/promote-to-standalone'));
      },
    },
    // auth; the ticket (with its board) ∥ the entries up to the page's end ∥ their COUNT ∥ configuration.
    [`GET ${t}/{ticketId}/timeline`]: { budget: 5, run: call(`GET ${t}/{ticketId}/timeline`) },
    // Suggestions: auth; ticket (BatchGetItem) ∥ the ticket's suggestions ∥ configuration; accept/reject add one write.
    [`GET ${t}/{ticketId}/suggestions`]: { budget: 4, run: call(`GET ${t}/{ticketId}/suggestions`) },
    [`POST ${t}/{ticketId}/suggestions/{suggestionId}/accept`]: {
      budget: 4,
      run: async (org) => {
        const { ticketId, suggestionId } = await suggested(org);
        return org.call('POST', onTicket(org, ticketId, `/suggestions/${suggestionId}/accept`), { body: {} });
      },
    },
    [`POST ${t}/{ticketId}/suggestions/{suggestionId}/reject`]: {
      budget: 4,
      run: async (org) => {
        const { ticketId, suggestionId } = await suggested(org);
        return org.call('POST', onTicket(org, ticketId, `/suggestions/${suggestionId}/reject`), { body: { reason: 'Not yet' } });
      },
    },
    [`GET ${t}/{ticketId}/comments`]: { budget: 3, run: call(`GET ${t}/{ticketId}/comments`) },
    [`POST ${t}/{ticketId}/comments`]: { budget: 3, run: call(`POST ${t}/{ticketId}/comments`, { content: 'Budget comment' }) },
    [`GET ${t}/{ticketId}/comments/{commentId}`]: { budget: 2, run: call(`GET ${t}/{ticketId}/comments/{commentId}`) },
    [`PATCH ${t}/{ticketId}/comments/{commentId}`]: { budget: 3, run: call(`PATCH ${t}/{ticketId}/comments/{commentId}`, { content: 'Edited' }) },
    [`DELETE ${t}/{ticketId}/comments/{commentId}`]: {
      budget: 3,
      run: async (org) => {
        const comment = (await post(org, `/api/v1/boards/${org.boardId}/tickets/${org.ticketId}/comments`, { content: 'Doomed' })).data;
        return org.call('DELETE', `/api/v1/boards/${org.boardId}/tickets/${org.ticketId}/comments/${comment.id}`);
      },
    },
    // One board Query per board the caller may see (the fixture admin sees a handful).
    'GET /api/v1/issues': { budget: 12, atMost: true, run: call('GET /api/v1/issues') },
    'GET /api/v1/labels': { budget: 2, run: call('GET /api/v1/labels') },
    'POST /api/v1/labels': { budget: 3, run: (org) => org.call('POST', '/api/v1/labels', { body: { name: `Budget ${suffix()}`, color: '#000000' } }) },
    'PATCH /api/v1/labels/{labelId}': { budget: 3, run: call('PATCH /api/v1/labels/{labelId}', { color: '#445566' }) },
    // auth; the label (its name); one transaction (delete + name guard).
    'GET /api/v1/webhook-endpoints': { budget: 2, run: (org) => org.call('GET', '/api/v1/webhook-endpoints') },
    'POST /api/v1/webhook-endpoints': {
      budget: 2,
      run: (org) => org.call('POST', '/api/v1/webhook-endpoints', { body: { name: `Probe ${suffix()}`, url: 'https://hooks.example.com/budget', events: ['ticket.created'] } }),
    },
    'GET /api/v1/webhook-endpoints/{endpointId}': { budget: 2, run: (org) => org.call('GET', `/api/v1/webhook-endpoints/${org.endpointId}`) },
    'PATCH /api/v1/webhook-endpoints/{endpointId}': { budget: 3, run: (org) => org.call('PATCH', `/api/v1/webhook-endpoints/${org.endpointId}`, { body: { name: `Renamed ${suffix()}` } }) },
    'DELETE /api/v1/webhook-endpoints/{endpointId}': {
      budget: 3,
      run: async (org) =>
        org.call('DELETE', `/api/v1/webhook-endpoints/${(await post(org, '/api/v1/webhook-endpoints', { name: `Doomed ${suffix()}`, url: 'https://hooks.example.com/doomed', events: ['ticket.created'] })).id}`),
    },
    // auth; the endpoint; the ping's delivery record (then one SQS message).
    'POST /api/v1/webhook-endpoints/{endpointId}/ping': { budget: 3, run: (org) => org.call('POST', `/api/v1/webhook-endpoints/${org.endpointId}/ping`) },
    // auth; the endpoint and its attempts (one Query), in parallel.
    'GET /api/v1/webhook-endpoints/{endpointId}/deliveries': { budget: 3, run: (org) => org.call('GET', `/api/v1/webhook-endpoints/${org.endpointId}/deliveries`) },
    // auth; the endpoint and the delivery, in parallel; the new delivery's record.
    'POST /api/v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/redeliver': {
      budget: 4,
      run: (org) => org.call('POST', `/api/v1/webhook-endpoints/${org.endpointId}/deliveries/${org.deliveryId}/redeliver`),
    },
    // auth; the integration.
    'GET /api/v1/integrations/{provider}': {
      budget: 2,
      run: async (org) => {
        await org.call('PUT', '/api/v1/integrations/gitlab');
        return org.call('GET', '/api/v1/integrations/gitlab');
      },
    },
    // auth; one upsert (createdAt kept on a replacement).
    'PUT /api/v1/integrations/{provider}': { budget: 2, run: (org) => org.call('PUT', '/api/v1/integrations/github') },
    'DELETE /api/v1/integrations/{provider}': {
      budget: 2,
      run: async (org) => {
        await org.call('PUT', '/api/v1/integrations/gitlab');
        return org.call('DELETE', '/api/v1/integrations/gitlab');
      },
    },
    // A new pull request linked by its branch: the slug; the organization and the integration;
    // the delivery id's claim; the pull request; the ticket key, then the ticket, beside the
    // agents' git identities; one transaction (the record and pr.opened).
    'POST /api/v1/integrations/github/events': {
      budget: 9,
      run: async (org) => {
        const secret = (await org.call('PUT', '/api/v1/integrations/github')).body.secret as string;
        const ticket = (await org.call('GET', `/api/v1/boards/${org.boardId}/tickets/${org.ticketId}`)).body.data;
        const body = JSON.stringify({
          pull_request: { number: Math.floor(Math.random() * 1e9), title: 'Budget', html_url: 'https://github.com/a/b/pull/1', state: 'open', head: { ref: `${ticket.displayId}-budget` }, user: { login: 'someone' } },
          repository: { full_name: 'a/b' },
        });
        return api('POST', '/api/v1/integrations/github/events', {
          org: org.slug,
          rawBody: body,
          headers: { 'x-github-event': 'pull_request', 'x-github-delivery': suffix(), 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
        });
      },
    },
    'POST /api/v1/integrations/gitlab/events': {
      budget: 9,
      run: async (org) => {
        const token = (await org.call('PUT', '/api/v1/integrations/gitlab')).body.secret as string;
        const ticket = (await org.call('GET', `/api/v1/boards/${org.boardId}/tickets/${org.ticketId}`)).body.data;
        const body = JSON.stringify({
          user: { username: 'someone' },
          project: { path_with_namespace: 'a/b' },
          object_attributes: { iid: Math.floor(Math.random() * 1e9), title: 'Budget', url: 'https://gitlab.com/a/b/-/merge_requests/1', state: 'opened', source_branch: `${ticket.displayId}-budget` },
        });
        return api('POST', '/api/v1/integrations/gitlab/events', {
          org: org.slug,
          rawBody: body,
          headers: { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': suffix(), 'x-gitlab-token': token },
        });
      },
    },
    // The organization's slug (the Host names it); the documents are built from the origin.
    ...Object.fromEntries(
      ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/v1/mcp'].map((path) => [
        `GET ${path}`,
        { budget: 1, run: (org: OrgFixture) => api('GET', path, { headers: { host: `${org.slug}.localhost:${new URL(inject('baseUrl')).port}` } }) },
      ]),
    ),
    // The public key is derived from the function's configuration.
    'GET /.well-known/jwks.json': { budget: 0, run: () => api('GET', '/.well-known/jwks.json') },
    // Authentication; the registration with its rate window, one transaction; the window's count (for RateLimit).
    'POST /api/v1/oauth/register': {
      budget: 3,
      run: (org) => api('POST', '/api/v1/oauth/register', { token: org.adminToken, headers: { host: oauthHost(org), 'x-forwarded-for': freshIp() }, body: { client_name: 'Budget', redirect_uris: ['https://budget.example.com/cb'] } }),
    },
    // The slug ∥ the caller's window; the client; the organization for the sign-in page.
    'GET /api/v1/oauth/authorize': {
      budget: 4,
      run: async (org) => {
        const { challenge } = await pkcePair();
        const query = new URLSearchParams({ response_type: 'code', client_id: org.oauthClientId, redirect_uri: 'http://127.0.0.1/fixture-callback', code_challenge: challenge, code_challenge_method: 'S256' });
        return pageCall(org, 'GET', `/api/v1/oauth/authorize?${query}`);
      },
    },
    // The slug ∥ the window; the sealed request is verified without a read; then login's six.
    'POST /api/v1/oauth/authorize/sign-in': {
      budget: 8,
      status: 303,
      run: async (org) => {
        const { challenge } = await pkcePair();
        const query = new URLSearchParams({ response_type: 'code', client_id: org.oauthClientId, redirect_uri: 'http://127.0.0.1/fixture-callback', code_challenge: challenge, code_challenge_method: 'S256' });
        const page = await pageCall(org, 'GET', `/api/v1/oauth/authorize?${query}`);
        const request = /name="request" value="([^"]+)"/.exec(page.text)![1]!;
        return pageCall(org, 'POST', '/api/v1/oauth/authorize/sign-in', new URLSearchParams({ request, email: `admin@${org.slug}.test`, password: 'correct horse battery' }).toString());
      },
    },
    // The slug ∥ the window; the session; the client; the code.
    'POST /api/v1/oauth/authorize/consent': {
      budget: 5,
      status: 303,
      run: async (org) => {
        const fetch = oauthFetch();
        const origin = `http://${oauthHost(org)}`;
        const { challenge } = await pkcePair();
        const url = new URL(`${origin}/api/v1/oauth/authorize`);
        url.search = new URLSearchParams({ response_type: 'code', client_id: org.oauthClientId, redirect_uri: 'http://127.0.0.1/fixture-callback', code_challenge: challenge, code_challenge_method: 'S256' }).toString();
        const signedIn = await codeFor(fetch, origin, org.oauthClientId, 'http://127.0.0.1/fixture-callback', { email: `admin@${org.slug}.test`, password: 'correct horse battery' });
        const page = await fetch(url, { headers: { cookie: signedIn.cookie! } });
        const html = await page.text();
        const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)![1]!;
        return pageCall(org, 'POST', '/api/v1/oauth/authorize/consent', new URLSearchParams({ request: field('request'), csrf: field('csrf'), decision: 'allow' }).toString(), signedIn.cookie!);
      },
    },
    // The slug ∥ the window; the session (its record, then its user); its deletion ∥ the Query of the person's
    // console grants (one revocation more for each console grant that sign-in made: none here).
    'POST /api/v1/oauth/authorize/sign-out': {
      budget: 5,
      status: 204,
      run: async (org) => {
        const signedIn = await codeFor(oauthFetch(), `http://${oauthHost(org)}`, org.oauthClientId, 'http://127.0.0.1/fixture-callback', { email: `admin@${org.slug}.test`, password: 'correct horse battery' });
        return pageCall(org, 'POST', '/api/v1/oauth/authorize/sign-out', '', signedIn.cookie!);
      },
    },
    // The caller's window; the code beside the client; one transaction (code, grant, refresh token, access token, user check).
    'POST /api/v1/oauth/token': {
      budget: 3,
      run: async (org) => {
        const grant = await createGrant(org, inject('baseUrl'));
        return api('POST', '/api/v1/oauth/token', {
          headers: { host: oauthHost(org), 'x-forwarded-for': freshIp() },
          body: { grant_type: 'refresh_token', refresh_token: grant.refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret },
        });
      },
    },
    // The caller's window; the token's record with its client; the grant's revocation.
    'POST /api/v1/oauth/revoke': {
      budget: 3,
      run: async (org) => {
        const grant = await createGrant(org, inject('baseUrl'));
        return api('POST', '/api/v1/oauth/revoke', { headers: { host: oauthHost(org), 'x-forwarded-for': freshIp() }, body: { token: grant.refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret } });
      },
    },
    // Authentication; the boards of the organization (tools/call boards_list; tools/list reads nothing).
    'POST /api/v1/mcp': {
      budget: 2,
      run: async (org) => {
        const response = await oauthFetch()(`http://${oauthHost(org)}/api/v1/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.adminToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'boards_list', arguments: {} } }),
        });
        // A 2025-11-25 request is answered as a one-event stream.
        const body = await response.text();
        return { status: response.status, body, headers: response.headers, roundTrips: Number(response.headers.get('x-db-round-trips') ?? NaN) };
      },
    },
    // Authentication; the window; the person's grants of the client; their users and organizations.
    'GET /api/v1/oauth/me/organizations': { budget: 4, run: call('GET /api/v1/oauth/me/organizations') },
    // Authentication; the window; the user's grants ∥ the user.
    'GET /api/v1/oauth/grants': { budget: 4, run: call('GET /api/v1/oauth/grants') },
    // Authentication; the window; the grant; its revocation.
    'DELETE /api/v1/oauth/grants/{grantId}': {
      budget: 4,
      status: 204,
      run: async (org) => org.call('DELETE', `/api/v1/oauth/grants/${(await createGrant(org, inject('baseUrl'))).grantId}`),
    },
    'DELETE /api/v1/labels/{labelId}': {
      budget: 3,
      run: async (org) => org.call('DELETE', `/api/v1/labels/${(await post(org, '/api/v1/labels', { name: `Doomed ${suffix()}`, color: '#000000' })).id}`),
    },
    'GET /api/v1/custom-fields': { budget: 2, run: call('GET /api/v1/custom-fields') },
    'POST /api/v1/custom-fields': { budget: 3, run: (org) => org.call('POST', '/api/v1/custom-fields', { body: { name: `Budget ${suffix()}`, type: 'TEXT' } }) },
    'PATCH /api/v1/custom-fields/{customFieldId}': { budget: 3, run: call('PATCH /api/v1/custom-fields/{customFieldId}', { description: 'Changed' }) },
    'DELETE /api/v1/custom-fields/{customFieldId}': {
      budget: 3,
      run: async (org) => org.call('DELETE', `/api/v1/custom-fields/${(await post(org, '/api/v1/custom-fields', { name: `Doomed ${suffix()}`, type: 'TEXT' })).id}`),
    },
    ...timeProbes(),
    ...milestoneProbes(),
    ...releaseProbes(),
    ...wikiProbes(),
  };
}

function wikiProbes(): Record<string, Probe> {
  const w = '/api/v1/wiki/spaces';
  const s = `${w}/{spaceId}`;
  const space = async (org: OrgFixture, body: Record<string, unknown> = {}) => (await post(org, w, { name: `Budget ${suffix()}`, ...body })).id as string;
  const board = async (org: OrgFixture) => (await post(org, '/api/v1/boards', { name: `Wiki ${suffix()}` })).id as string;
  const page = async (org: OrgFixture) => (await post(org, `${w}/${org.spaceId}/pages`, { title: `Budget ${suffix()}`, content: 'text' })).id as string;
  return {
    // auth; the spaces Query ∥ the boards Query (who may see which).
    [`GET ${w}`]: { budget: 3, run: call(`GET ${w}`) },
    // auth; one transaction (space, slug guard, hourly count); the count read back (for RateLimit).
    [`POST ${w}`]: { budget: 3, run: (org) => org.call('POST', w, { body: { name: `Budget ${suffix()}` } }) },
    // In an organization of one space and a page just written (not yet indexed): auth; spaces ∥ boards ∥ the pending
    // markers; the word's entries (one Query per word and space); the matching and pending pages (one BatchGetItem);
    // the pending page's content (one BatchGetItem), which also gives its snippet.
    'GET /api/v1/wiki/search': {
      budget: 7,
      run: async () => {
        const fresh = await signupOrg();
        const only = (await fresh.call('POST', w, { body: { name: 'Searched' } })).body.id;
        await fresh.call('POST', `${w}/${only}/pages`, { body: { title: 'Needle', content: 'a needle here' } });
        return fresh.call('GET', '/api/v1/wiki/search?q=needle');
      },
    },
    // auth; the board and its link guard (one BatchGetItem); the space.
    [`GET ${w}/board/{boardId}`]: { budget: 3, run: call(`GET ${w}/board/{boardId}`) },
    // auth; the board and its link guard; the board again (consistent, before the link); one transaction; the count read back.
    [`POST ${w}/board/{boardId}`]: { budget: 5, run: async (org) => org.call('POST', `${w}/board/${await board(org)}`, { body: { name: `Budget ${suffix()}` } }) },
    // auth; the space (an administrator's access needs no board).
    [`GET ${s}`]: { budget: 2, run: call(`GET ${s}`) },
    // auth; the space; one guarded put.
    [`PATCH ${s}`]: { budget: 3, run: call(`PATCH ${s}`, { description: 'Changed' }) },
    // auth; the space; one transaction (space, guards, purge record).
    [`DELETE ${s}`]: { budget: 3, run: async (org) => org.call('DELETE', `${w}/${await space(org)}`) },
    // auth; the space ∥ its folders ∥ its pages.
    [`GET ${s}/tree`]: { budget: 4, run: call(`GET ${s}/tree`) },
    // auth; the space.
    [`GET ${s}/permission`]: { budget: 2, run: call(`GET ${s}/permission`) },
    // auth; the space, then its board ∥ the organization's users.
    [`GET ${s}/effective-members`]: { budget: 4, run: call(`GET ${s}/effective-members`) },
    // auth; the space; the board (consistent); one transaction.
    [`POST ${s}/link-board`]: {
      budget: 4,
      run: async (org) => org.call('POST', `${w}/${await space(org)}/link-board`, { body: { boardId: await board(org) } }),
    },
    // auth; the space; one transaction.
    [`POST ${s}/unlink-board`]: { budget: 3, run: async (org) => org.call('POST', `${w}/${await space(org, { boardId: await board(org) })}/unlink-board`) },
    // auth; the space ∥ the organization's users.
    [`GET ${s}/members`]: { budget: 3, run: call(`GET ${s}/members`) },
    // auth; the space ∥ the user; one guarded put.
    [`POST ${s}/members`]: { budget: 4, run: (org) => org.call('POST', `${w}/${org.spaceId}/members`, { body: { userId: org.memberId, role: 'edit' } }) },
    // auth; the space; one guarded put.
    [`DELETE ${s}/members/{userId}`]: {
      budget: 3,
      run: async (org) => {
        await org.call('POST', `${w}/${org.spaceId}/members`, { body: { userId: org.memberId, role: 'view' } });
        return org.call('DELETE', `${w}/${org.spaceId}/members/${org.memberId}`);
      },
    },
    // auth; the space ∥ its pages.
    [`GET ${s}/pages`]: { budget: 3, run: call(`GET ${s}/pages`) },
    // auth; the space; one transaction (page, version, content, hourly count, checks); the count read back.
    [`POST ${s}/pages`]: { budget: 4, run: (org) => org.call('POST', `${w}/${org.spaceId}/pages`, { body: { title: `Budget ${suffix()}`, content: 'Body' } }) },
    // auth; the space and the page (one BatchGetItem); its content (one Query).
    [`GET ${s}/pages/{pageId}`]: { budget: 3, run: call(`GET ${s}/pages/{pageId}`) },
    // auth; space and page; one transaction (a new content of another length needs no read of the old).
    [`PATCH ${s}/pages/{pageId}`]: { budget: 3, run: async (org) => org.call('PATCH', `${w}/${org.spaceId}/pages/${await page(org)}`, { body: { content: `Changed ${suffix()}!` } }) },
    // auth; space and page; one transaction (the page, its purge record).
    [`DELETE ${s}/pages/{pageId}`]: { budget: 3, run: async (org) => org.call('DELETE', `${w}/${org.spaceId}/pages/${await page(org)}`) },
    // auth; space and page; its versions.
    [`GET ${s}/pages/{pageId}/versions`]: { budget: 3, run: call(`GET ${s}/pages/{pageId}/versions`) },
    // auth; space and page; its versions; the version's content.
    [`GET ${s}/pages/{pageId}/versions/{versionId}`]: { budget: 4, run: call(`GET ${s}/pages/{pageId}/versions/{versionId}`) },
    // auth; space and page; its versions; the version's content; one transaction.
    [`POST ${s}/pages/{pageId}/versions/{versionId}/restore`]: { budget: 5, run: call(`POST ${s}/pages/{pageId}/versions/{versionId}/restore`) },
    // auth; the space ∥ its folders.
    [`GET ${s}/folders`]: { budget: 3, run: call(`GET ${s}/folders`) },
    // auth; the space ∥ its folders; one transaction (folder, the parents' chain, the space).
    [`POST ${s}/folders`]: { budget: 4, run: (org) => org.call('POST', `${w}/${org.spaceId}/folders`, { body: { name: `Budget ${suffix()}` } }) },
    // auth; the space and the folder (one BatchGetItem).
    [`GET ${s}/folders/{folderId}`]: { budget: 2, run: call(`GET ${s}/folders/{folderId}`) },
    // auth; the space ∥ its folders; one transaction.
    [`PATCH ${s}/folders/{folderId}`]: { budget: 4, run: call(`PATCH ${s}/folders/{folderId}`, { order: 3 }) },
    // auth; the space ∥ its folders ∥ its pages; one transaction.
    [`DELETE ${s}/folders/{folderId}`]: {
      budget: 5,
      run: async (org) => org.call('DELETE', `${w}/${org.spaceId}/folders/${(await post(org, `${w}/${org.spaceId}/folders`, { name: `Doomed ${suffix()}` })).id}`),
    },
  };
}

function releaseProbes(): Record<string, Probe> {
  const r = '/api/v1/boards/{boardId}/releases';
  const fresh = async (org: OrgFixture) => (await post(org, `/api/v1/boards/${org.boardId}/releases`, { name: `Budget ${suffix()}` })).id as string;
  const attached = async (org: OrgFixture) => {
    const releaseId = await fresh(org);
    const ticketId = (await post(org, `/api/v1/boards/${org.boardId}/tickets`, { title: 'Budget' })).data.id as string;
    await org.call('POST', `/api/v1/boards/${org.boardId}/releases/${releaseId}/tickets`, { body: { ticketId } });
    return { releaseId, ticketId };
  };
  return {
    // auth; the board; the board's releases ∥ its milestones (two Queries).
    [`GET ${r}`]: { budget: 4, run: call(`GET ${r}`) },
    // auth; the board (and the board's milestones when some are named); one transaction.
    [`POST ${r}`]: { budget: 3, run: (org) => org.call('POST', `/api/v1/boards/${org.boardId}/releases`, { body: { name: `Budget ${suffix()}`, version: '1.2.3' } }) },
    // auth; the board and the release (one BatchGetItem) ∥ the board's milestones.
    [`GET ${r}/{releaseId}`]: { budget: 3, run: call(`GET ${r}/{releaseId}`) },
    // auth; board and release ∥ milestones; one guarded patch.
    [`PATCH ${r}/{releaseId}`]: { budget: 4, run: call(`PATCH ${r}/{releaseId}`, { description: 'Changed' }) },
    // auth; board and release; the mark; its tickets (one Query; none to detach here); the delete.
    [`DELETE ${r}/{releaseId}`]: { budget: 3, run: async (org) => org.call('DELETE', `/api/v1/boards/${org.boardId}/releases/${await fresh(org)}`) },
    // auth; board and release ∥ milestones; one transaction (the release, a check of the milestone).
    [`POST ${r}/{releaseId}/milestones`]: {
      budget: 4,
      run: async (org) => org.call('POST', `/api/v1/boards/${org.boardId}/releases/${await fresh(org)}/milestones`, { body: { milestoneId: org.milestoneId } }),
    },
    // auth; board and release ∥ milestones; one guarded patch.
    [`DELETE ${r}/{releaseId}/milestones/{milestoneId}`]: {
      budget: 4,
      run: async (org) => {
        const releaseId = await fresh(org);
        await org.call('POST', `/api/v1/boards/${org.boardId}/releases/${releaseId}/milestones`, { body: { milestoneId: org.milestoneId } });
        return org.call('DELETE', `/api/v1/boards/${org.boardId}/releases/${releaseId}/milestones/${org.milestoneId}`);
      },
    },
    // auth; board, release and ticket (one BatchGetItem) ∥ milestones; one transaction (ticket, release count, membership).
    [`POST ${r}/{releaseId}/tickets`]: {
      budget: 4,
      run: async (org) => {
        const ticketId = (await post(org, `/api/v1/boards/${org.boardId}/tickets`, { title: 'Budget' })).data.id;
        return org.call('POST', `/api/v1/boards/${org.boardId}/releases/${await fresh(org)}/tickets`, { body: { ticketId } });
      },
    },
    // auth; board, release and ticket; one transaction.
    [`DELETE ${r}/{releaseId}/tickets/{ticketId}`]: {
      budget: 3,
      run: async (org) => {
        const { releaseId, ticketId } = await attached(org);
        return org.call('DELETE', `/api/v1/boards/${org.boardId}/releases/${releaseId}/tickets/${ticketId}`);
      },
    },
    // auth; board and release ∥ its members (one Query) ∥ the configuration; the page's tickets (one BatchGetItem).
    [`GET ${r}/{releaseId}/tickets`]: { budget: 5, run: call(`GET ${r}/{releaseId}/tickets`) },
  };
}

function milestoneProbes(): Record<string, Probe> {
  const m = '/api/v1/boards/{boardId}/milestones';
  const doomed = async (org: OrgFixture) => (await post(org, `/api/v1/boards/${org.boardId}/milestones`, { name: `Doomed ${suffix()}`, dueDate: '2027-01-01' })).id;
  return {
    // auth; the board ∥ the board's milestones (one Query).
    [`GET ${m}`]: { budget: 3, run: call(`GET ${m}`) },
    // auth; the board; one transaction (milestone + name guard).
    [`POST ${m}`]: { budget: 3, run: (org) => org.call('POST', `/api/v1/boards/${org.boardId}/milestones`, { body: { name: `Budget ${suffix()}`, dueDate: '2027-01-01' } }) },
    // auth; the board and the milestone (one BatchGetItem).
    [`GET ${m}/{milestoneId}`]: { budget: 2, run: call(`GET ${m}/{milestoneId}`) },
    // auth; board and milestone; one transaction (guarded patch, a rename's guards).
    [`PATCH ${m}/{milestoneId}`]: { budget: 3, run: call(`PATCH ${m}/{milestoneId}`, { color: '#445566' }) },
    // auth; board and milestone; its tickets; one transaction (mark, free the name); its tickets again (none to clear here).
    [`DELETE ${m}/{milestoneId}`]: { budget: 3, run: async (org) => org.call('DELETE', `/api/v1/boards/${org.boardId}/milestones/${await doomed(org)}`) },
    // auth; board and milestone; the page's head of each status category (three Queries, in
    // parallel, no further than the page's end) ∥ the configuration. One Query read every ticket
    // of the milestone before (as many round trips as its megabytes).
    [`GET ${m}/{milestoneId}/tickets`]: { budget: 6, run: call(`GET ${m}/{milestoneId}/tickets`) },
  };
}

const agentTokens = new Map<string, Promise<string>>();

/** A PENDING entry of the fixture's agent (a member of the fixture board) on the fixture ticket; one token minted per fixture. */
async function pendingAgentEntry(org: OrgFixture): Promise<string> {
  if (!agentTokens.has(org.orgId)) agentTokens.set(org.orgId, post(org, `/api/v1/organizations/${org.orgId}/agents/${org.agentId}/tokens`, { name: 'time' }).then((minted) => minted.token));
  const token = await agentTokens.get(org.orgId)!;
  const entry = await api('POST', '/api/v1/time-tracking/entries', { token, org: org.slug, body: { ticketId: org.ticketId, durationMinutes: 10 } });
  if (entry.status !== 201) throw new Error(`agent entry: ${entry.status} ${JSON.stringify(entry.body)}`);
  return entry.body.id;
}

function timeProbes(): Record<string, Probe> {
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

/** A fresh organization's status or ticket type, by its key or name. */
const statusOf = async (org: TestOrg, key: string) => (await org.call('GET', '/api/v1/statuses')).body.data.find((status: any) => status.key === key);

/**
 * A PRO organization of its own with a board (Explainable Status when asked) and an agent on it
 * whose token has been used once (its first use records lastSeenAt), built once per kind.
 */
const approvalWorlds = new Map<boolean, Promise<{ org: TestOrg; boardId: string; agentToken: string; status: (key: string) => string }>>();
function approvalWorld(explainable: boolean) {
  if (!approvalWorlds.has(explainable)) {
    approvalWorlds.set(
      explainable,
      (async () => {
        const org = await createOrg({ plan: 'PRO' });
        const board = await createBoard(org, { name: 'Approvals' });
        if (explainable) await org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { features: { explainableStatus: true } } });
        const owner = await createMember(org);
        const agent = await createAgent(org, { agent: { name: 'Builder Bot', ownerId: owner.id }, boardIds: [board.id] });
        const agentToken = agent.token;
        await agent.call('GET', `/api/v1/boards/${board.id}/tickets`);
        const statuses = (await org.call('GET', '/api/v1/statuses')).body.data as { key: string; id: string }[];
        return { org, boardId: board.id, agentToken, status: (key: string) => statuses.find((status) => status.key === key)!.id };
      })(),
    );
  }
  return approvalWorlds.get(explainable)!;
}

/** An agent's move of a fresh IN_PROGRESS ticket into DONE (gated by default), `times` times; the last answer. */
async function agentMovesToDone(explainable: boolean, times = 1): Promise<ApiResponse> {
  const w = await approvalWorld(explainable);
  const ticket = await createTicket(w.org, w.boardId, { statusId: w.status('IN_PROGRESS') });
  let response: ApiResponse | undefined;
  for (let i = 0; i < times; i += 1) {
    response = await api('PATCH', `/api/v1/boards/${w.boardId}/tickets/${ticket.id}/status`, { token: w.agentToken, org: w.org.slug, body: { statusId: w.status('DONE'), reason: `Move ${i}` } });
  }
  return response!;
}

/** A new board of the organization with a person who is its direct member (setup, not measured). */
async function boardWithMember(org: TestOrg): Promise<{ boardId: string; memberId: string }> {
  const board = await createBoard(org);
  return { boardId: board.id, memberId: (await createBoardMember(org, board.id)).id };
}

/**
 * A PRO organization of its own for the list figures (they depend on how many boards the caller
 * sees): three boards, the first a team's, with tickets in several categories; built once.
 */
let listWorldBuilt: Promise<{ org: TestOrg; boards: string[]; member: { id: string; token: string } }> | undefined;
function listWorld() {
  listWorldBuilt ??= (async () => {
    const org = await createOrg({ plan: 'PRO' });
    const member = await createMember(org, { name: 'Team Member' });
    const team = await createTeam(org, { memberIds: [member.id] });
    const boards = [(await createBoard(org, { teamIds: [team.id] })).id as string, (await createBoard(org)).id as string, (await createBoard(org)).id as string];
    const status = async (key: string) => (await statusOf(org, key)).id;
    await createTicket(org, boards[0]!, { statusId: await status('IN_PROGRESS'), assigneeId: member.id });
    await createTicket(org, boards[0]!, { statusId: await status('IN_REVIEW') });
    await createTicket(org, boards[0]!, { statusId: await status('BACKLOG') });
    await createTicket(org, boards[0]!, { statusId: await status('DONE') });
    await createTicket(org, boards[0]!, { statusId: await status('IN_PROGRESS'), isArchived: true });
    await createTicket(org, boards[1]!, { statusId: await status('IN_PROGRESS') });
    await createTicket(org, boards[2]!, { statusId: await status('IN_PROGRESS') });
    return { org, boards, member };
  })();
  return listWorldBuilt;
}

/**
 * A board past one page, for the column-by-column path: IN_PROGRESS 6, IN_REVIEW 5 (the first
 * archived), BLOCKED 3, DONE 30; built once.
 */
let columnWorldBuilt: Promise<{ org: TestOrg; boardId: string; done: string }> | undefined;
function columnWorld() {
  columnWorldBuilt ??= (async () => {
    const org = await createOrg();
    const board = await createBoard(org);
    const fill = async (key: string, count: number, extra: Record<string, unknown> = {}) => {
      const statusId = (await statusOf(org, key)).id;
      for (let index = 0; index < count; index += 1) await createTicket(org, board.id, { statusId, ...extra });
    };
    await fill('IN_PROGRESS', 6);
    await fill('IN_REVIEW', 1, { isArchived: true });
    await fill('IN_REVIEW', 4);
    await fill('BLOCKED', 3);
    await fill('DONE', 30);
    return { org, boardId: board.id, done: (await statusOf(org, 'DONE')).id };
  })();
  return columnWorldBuilt;
}

/**
 * Three boards for GET /issues' column path: two marked large (their counter is an upper bound of
 * their tickets, set in the table), one small, each with four IN_PROGRESS tickets; built once.
 */
let largeBoardsBuilt: Promise<TestOrg> | undefined;
function largeBoardsWorld() {
  largeBoardsBuilt ??= (async () => {
    const org = await createOrg();
    const active = (await statusOf(org, 'IN_PROGRESS')).id;
    for (const name of ['Large one', 'Large two', 'Small']) {
      const board = await createBoard(org, { name });
      for (let index = 0; index < 4; index += 1) await createTicket(org, board.id, { statusId: active });
      if (name !== 'Small') await db().entities.board.patch({ orgId: org.orgId, boardId: board.id }).set({ ticketCounter: 500 }).go();
    }
    return org;
  })();
  return largeBoardsBuilt;
}

/**
 * The figures of particular cases, moved here from the tests of their domains (so that a change of
 * cost is one edit in one file). Those that change an organization's defaults use one of their own.
 */
const scenarios: Record<string, Probe> = {
  // Auth, boards ∥ configuration (two), the organization's quarantine entries, their tickets (one BatchGetItem).
  'the quarantined tickets (issues?quarantined=true), read from their entries, never the boards': {
    budget: 5,
    run: async () => {
      const s = await boardSetup('Quarantined');
      const ticket = await createTicket(s.org, s.boardId, { title: 'Failing', statusId: s.statuses.IN_PROGRESS.id });
      const { data } = await db().entities.ticket.get({ ticketId: ticket.id }).go({ consistent: true });
      const since = new Date().toISOString();
      await db().entities.ticket.put({ ...data!, quarantinedAt: since, quarantineLapses: 3 }).go();
      await db().entities.quarantineEntry.put({ orgId: s.org.orgId, ticketId: ticket.id, boardId: s.boardId, since, lapses: 3 }).go();
      const listed = await s.org.call('GET', '/api/v1/issues?quarantined=true');
      if (listed.body.data?.length !== 1) throw new Error(`quarantined list: ${JSON.stringify(listed.body)}`);
      return listed;
    },
  },
  // Ticket types.
  'a ticket type created as the new default: the old default cleared in the same transaction': {
    budget: 3,
    run: async () => (await signupOrg()).call('POST', '/api/v1/ticket-types', { body: { name: 'Story', color: '#123456', isOrgDefault: true } }),
  },
  'a ticket type made the default by PATCH': {
    budget: 3,
    run: async () => {
      const fresh = await signupOrg();
      const story = await post(fresh, '/api/v1/ticket-types', { name: 'Story', color: '#123456' });
      return fresh.call('PATCH', `/api/v1/ticket-types/${story.id}`, { body: { isOrgDefault: true } });
    },
  },
  'a ticket type without tickets deleted naming the type they would move to': {
    budget: 3,
    status: 204,
    run: async (org) => org.call('DELETE', `/api/v1/ticket-types/${(await post(org, '/api/v1/ticket-types', { name: `Chore ${suffix()}`, color: '#123456' })).id}?replacementTypeId=${org.typeId}`),
  },
  'a ticket type renamed: the old name freed and the new one guarded in the same transaction': {
    budget: 3,
    run: async (org) => org.call('PATCH', `/api/v1/ticket-types/${(await post(org, '/api/v1/ticket-types', { name: `Bug ${suffix()}`, color: '#123456' })).id}`, { body: { name: `Defect ${suffix()}` } }),
  },
  // Labels and custom fields.
  'a label renamed: the old name freed and the new one guarded': {
    budget: 3,
    run: async (org) => org.call('PATCH', `/api/v1/labels/${(await post(org, '/api/v1/labels', { name: `Bug ${suffix()}`, color: '#336699' })).id}`, { body: { name: `Defect ${suffix()}` } }),
  },
  'a custom field renamed: the old name freed and the new one guarded': {
    budget: 3,
    run: async (org) => org.call('PATCH', `/api/v1/custom-fields/${(await post(org, '/api/v1/custom-fields', { name: `Estimate ${suffix()}`, type: 'TEXT' })).id}`, { body: { name: `Points ${suffix()}` } }),
  },
  // Statuses.
  'a status created as the new default': {
    budget: 3,
    run: async () => (await signupOrg()).call('POST', '/api/v1/statuses', { body: { name: 'Inbox', color: '#123456', category: 'PLANNING', isDefault: true } }),
  },
  'a status made the default by PATCH': {
    budget: 3,
    run: async () => {
      const fresh = await signupOrg();
      return fresh.call('PATCH', `/api/v1/statuses/${(await statusOf(fresh, 'TODO')).id}`, { body: { isDefault: true } });
    },
  },
  // auth, Query, transaction (the status, its mark and the job that moves its tickets in the background).
  'a status moved to another category (with its name, color and order)': {
    budget: 3,
    run: async () => {
      const fresh = await signupOrg();
      return fresh.call('PATCH', `/api/v1/statuses/${(await statusOf(fresh, 'IN_REVIEW')).id}`, { body: { name: 'Code Review', color: '#00FF00', category: 'PLANNING', order: 9 } });
    },
  },
  'a status renamed: the old name freed and the new one guarded': {
    budget: 3,
    run: async () => {
      const fresh = await signupOrg();
      return fresh.call('PATCH', `/api/v1/statuses/${(await statusOf(fresh, 'BLOCKED')).id}`, { body: { name: 'On Hold' } });
    },
  },
  'statuses reordered into the order they already have: nothing written': {
    budget: 2,
    run: async () => {
      const fresh = await signupOrg();
      const ids = (await fresh.call('GET', '/api/v1/statuses')).body.data.map((status: any) => status.id);
      return fresh.call('POST', '/api/v1/statuses/reorder', { body: { statusIds: ids } });
    },
  },
  // Customers.
  'the customer list as a customer user (only their own customer)': {
    budget: 2,
    run: async (org) => {
      const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: org.customerId });
      return api('GET', '/api/v1/customers', { token: customerUser.token, org: org.slug });
    },
  },
  // The approval gate. auth, ticket ‖ configuration, the ticket's suggestions, one transaction (suggestion + notification).
  'an agent\'s move into a gated status refused and kept as a pending suggestion (Explainable Status)': { budget: 5, status: 403, run: () => agentMovesToDone(true) },
  // auth, ticket ‖ configuration, the ticket's suggestions; nothing written.
  'the same refused move again: the pending suggestion found, nothing written': { budget: 4, status: 403, run: () => agentMovesToDone(true, 2) },
  // auth, ticket ‖ configuration.
  'an agent\'s move into a gated status refused outright (no Explainable Status)': { budget: 3, status: 403, run: () => agentMovesToDone(false) },
  'a suggestion accepted for a ticket already in its status: nothing moved': {
    budget: 4,
    run: async () => {
      const w = await approvalWorld(true);
      const ticket = (await post(w.org, `/api/v1/boards/${w.boardId}/tickets`, { title: `Settled ${suffix()}`, statusId: w.status('IN_PROGRESS') })).data;
      const refused = await api('PATCH', `/api/v1/boards/${w.boardId}/tickets/${ticket.id}/status`, { token: w.agentToken, org: w.org.slug, body: { statusId: w.status('DONE') } });
      await w.org.call('PATCH', `/api/v1/boards/${w.boardId}/tickets/${ticket.id}/status`, { body: { statusId: w.status('DONE') } });
      return w.org.call('POST', `/api/v1/boards/${w.boardId}/tickets/${ticket.id}/suggestions/${refused.body.error.details.suggestionId}/accept`);
    },
  },
  // Boards.
  // auth, the transaction refused for the taken prefix, one read of the alternatives, the transaction.
  'a board whose generated prefix is taken: the next free one found in one read': {
    budget: 4,
    status: 201,
    run: async () => {
      const fresh = await signupOrg();
      await post(fresh, '/api/v1/boards', { name: 'Wide Widget' });
      return fresh.call('POST', '/api/v1/boards', { body: { name: 'Wild Wolf' } });
    },
  },
  'a board refused for an unknown customer: nothing written': {
    budget: 2,
    status: 400,
    run: (org) => org.call('POST', '/api/v1/boards', { body: { name: `Refused ${suffix()}`, customerIds: [org.customerId, 'cst_unknown'] } }),
  },
  // auth, one BatchGetItem of the teams, one transaction.
  'a board created with teams and customers': {
    budget: 3,
    status: 201,
    run: (org) => org.call('POST', '/api/v1/boards', { body: { name: `Assigned ${suffix()}`, teamIds: [org.teamId, org.teamId], customerIds: [org.customerId] } }),
  },
  'a board\'s customers replaced by PATCH customerIds': {
    budget: 3,
    run: async (org) => {
      const board = await post(org, '/api/v1/boards', { name: `Shared ${suffix()}` });
      return org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { customerIds: [org.customerId] } });
    },
  },
  'a board member added again: nothing written': {
    budget: 2,
    run: async (org) => {
      const board = await post(org, '/api/v1/boards', { name: `Members ${suffix()}` });
      const member = await createMember(org);
      await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } });
      return org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } });
    },
  },
  'a team assigned to a board again: nothing written': {
    budget: 2,
    run: async (org) => {
      const board = await post(org, '/api/v1/boards', { name: `Teams ${suffix()}` });
      await org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: org.teamId } });
      return org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: org.teamId } });
    },
  },
  // auth, the board, the organization's users (who loses access), their tickets on the board, the write.
  'a team removed from a board, a member losing access': {
    budget: 5,
    run: async (org) => {
      const member = await createMember(org);
      const team = await post(org, '/api/v1/teams', { name: `Leaving ${suffix()}`, memberIds: [member.id] });
      const board = await post(org, '/api/v1/boards', { name: `Team board ${suffix()}` });
      await org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: team.id } });
      return org.call('DELETE', `/api/v1/boards/${board.id}/teams/${team.id}`);
    },
  },
  // Tickets.
  'a ticket read by its display id, in any case: one round trip more than by its id (the display id\'s key)': {
    budget: 4,
    run: async (org) => {
      const ticket = (await org.call('GET', `/api/v1/boards/${org.boardId}/tickets/${org.ticketId}`)).body.data;
      return org.call('GET', `/api/v1/boards/${org.boardId}/tickets/${ticket.displayId.toLowerCase()}`);
    },
  },
  // Agents.
  'the agent list with two agents: one token Query per agent': {
    budget: 5,
    run: async () => {
      const fresh = await signupOrg();
      await setPlan(fresh.slug, 'PRO');
      const agents = `/api/v1/organizations/${fresh.orgId}/agents`;
      const first = await post(fresh, agents, { name: 'A owned by admin' });
      await post(fresh, `${agents}/${first.id}/tokens`, { name: 'ci' });
      await post(fresh, agents, { name: 'B' });
      return fresh.call('GET', agents);
    },
  },
  'an agent handed to another owner (the new owner read and checked)': {
    budget: 5,
    run: async (org) => {
      const agent = await post(org, `/api/v1/organizations/${org.orgId}/agents`, { name: `Handed ${suffix()}` });
      const next = await createMember(org, { name: 'Next Owner' });
      return org.call('PATCH', `/api/v1/organizations/${org.orgId}/agents/${agent.id}`, { body: { ownerId: next.id } });
    },
  },
  'an agent token minted with restrictions (its boards checked)': {
    budget: 5,
    run: async (org) => {
      const agent = await post(org, `/api/v1/organizations/${org.orgId}/agents`, { name: `Restricted ${suffix()}` });
      return org.call('POST', `/api/v1/organizations/${org.orgId}/agents/${agent.id}/tokens`, {
        body: { name: 'runner', expiresInDays: 7, allowedBoardIds: [org.boardId], readOnly: true, clientLabel: 'Claude' },
      });
    },
  },
  'the agents overview with three agents (one inactive, one deleted): one open-claims Query per agent it shows': {
    budget: 5,
    run: async () => {
      const fresh = await signupOrg();
      await setPlan(fresh.slug, 'PRO');
      const agents = `/api/v1/organizations/${fresh.orgId}/agents`;
      await post(fresh, agents, { name: 'Builder' });
      const second = await post(fresh, agents, { name: 'Auditor' });
      const third = await post(fresh, agents, { name: 'Cleaner' });
      await fresh.call('PATCH', `${agents}/${second.id}`, { body: { isActive: false } });
      await fresh.call('DELETE', `${agents}/${third.id}`);
      return fresh.call('GET', `${agents}/overview`);
    },
  },
  // Claims. auth; boards ∥ configuration; the holder's byClaimHolder Query (no board is read).
  'the cross-board list of the tickets the caller claimed (claimedBy=me)': {
    budget: 4,
    run: async (org) => {
      const ticket = await freshTicket(org);
      await org.call('POST', `/api/v1/boards/${org.boardId}/tickets/${ticket.id}/claim`, { body: {} });
      return org.call('GET', '/api/v1/issues?claimedBy=me');
    },
  },
  // Sign-in: an unknown e-mail costs the same reads as a wrong password (nothing tells them apart).
  'a sign-in refused for a wrong password': {
    budget: 5,
    status: 401,
    run: (org) => api('POST', '/api/v1/auth/login', { org: org.slug, headers: { 'x-forwarded-for': freshIp() }, body: { email: `admin@${org.slug}.test`, password: 'wrong password' } }),
  },
  'a sign-in refused for an unknown e-mail: the same reads as a wrong password': {
    budget: 5,
    status: 401,
    run: (org) => api('POST', '/api/v1/auth/login', { org: org.slug, headers: { 'x-forwarded-for': freshIp() }, body: { email: 'nobody@example.test', password: 'wrong password' } }),
  },
  // Ticket workflow.
  'a ticket unassigned (null): no assignee to read': {
    budget: 4,
    run: async (org) => {
      const { boardId, memberId } = await boardWithMember(org);
      const ticket = await createTicket(org, boardId, { assigneeId: memberId });
      return org.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}/assign`, { body: { assigneeId: null } });
    },
  },
  // The blockedBy user is checked inside the transaction.
  'a ticket moved to BLOCKED with its blocker': {
    budget: 4,
    run: async (org) => {
      const { boardId, memberId } = await boardWithMember(org);
      const ticket = await createTicket(org, boardId);
      const blocked = (await statusOf(org, 'BLOCKED')).id;
      return org.call('POST', `/api/v1/boards/${boardId}/tickets/${ticket.id}/transition`, { body: { toStatusId: blocked, blockerInfo: { reason: 'Waiting for the vendor', blockedBy: memberId } } });
    },
  },
  // auth, ticket+board ‖ configuration, the assignee, one transaction.
  'an inline edit of title, description, status, assignee and due date': {
    budget: 5,
    run: async (org) => {
      const { boardId, memberId } = await boardWithMember(org);
      const ticket = await createTicket(org, boardId);
      return org.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}/inline`, {
        body: { title: 'Edited inline', description: 'New words', statusId: (await statusOf(org, 'IN_PROGRESS')).id, assigneeId: memberId, dueDate: '2031-03-04', expectedUpdatedAt: ticket.updatedAt },
      });
    },
  },
  'an inline edit clearing the assignee and due date': {
    budget: 4,
    run: async (org) => {
      const { boardId, memberId } = await boardWithMember(org);
      const ticket = await createTicket(org, boardId, { assigneeId: memberId, dueDate: '2030-01-01' });
      return org.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}/inline`, { body: { assigneeId: null, dueDate: null } });
    },
  },
  'an inline edit refused as stale (409 STALE_UPDATE): nothing written': {
    budget: 3,
    status: 409,
    run: async (org) => {
      const { boardId } = await boardWithMember(org);
      const ticket = await createTicket(org, boardId);
      await org.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}/inline`, { body: { title: 'Someone else was first' } });
      return org.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}/inline`, { body: { title: 'Mine', expectedUpdatedAt: ticket.updatedAt } });
    },
  },
  // As a move, plus the assignee's GetItem (in parallel with the counter).
  'a ticket moved to a board its assignee cannot see (kept, flagged needsReassignment)': {
    budget: 6,
    run: async (org) => {
      const { boardId, memberId } = await boardWithMember(org);
      const target = await post(org, '/api/v1/boards', { name: `Unseen ${suffix()}` });
      const ticket = await createTicket(org, boardId, { assigneeId: memberId });
      return org.call('POST', `/api/v1/boards/${boardId}/tickets/${ticket.id}/move`, { body: { targetBoardId: target.id } });
    },
  },
  // auth, board + user, the change with the flagging job: the tickets are flagged in the background.
  'a direct member removed from a board, two of their tickets flagged': {
    budget: 3,
    status: 204,
    run: async (org) => {
      const { boardId, memberId } = await boardWithMember(org);
      await createTicket(org, boardId, { assigneeId: memberId });
      await createTicket(org, boardId, { assigneeId: memberId });
      return org.call('DELETE', `/api/v1/boards/${boardId}/members/${memberId}`);
    },
  },
  // auth, board ‖ configuration, the board's tickets.
  'the tickets needing reassignment on a board': {
    budget: 4,
    run: async (org) => {
      const { boardId, memberId } = await boardWithMember(org);
      await createTicket(org, boardId, { assigneeId: memberId });
      await org.call('DELETE', `/api/v1/boards/${boardId}/members/${memberId}`);
      return org.call('GET', `/api/v1/boards/${boardId}/tickets/needing-reassignment`);
    },
  },
  // auth, board ‖ users, the change with the flagging job, one COUNT of the member's tickets: flagged in the background.
  'a team removed from a board, two tickets of its member flagged': {
    budget: 5,
    run: async (org) => {
      const board = await post(org, '/api/v1/boards', { name: `Team leaves ${suffix()}` });
      const member = await createMember(org);
      const team = await post(org, '/api/v1/teams', { name: `Leaving ${suffix()}`, memberIds: [member.id] });
      await org.call('POST', `/api/v1/boards/${board.id}/teams`, { body: { teamId: team.id } });
      await createTicket(org, board.id, { assigneeId: member.id });
      await createTicket(org, board.id, { assigneeId: member.id });
      return org.call('DELETE', `/api/v1/boards/${board.id}/teams/${team.id}`);
    },
  },
  'a team removed from a board whose member stays a direct member: nothing flagged': {
    budget: 4,
    run: async (org) => {
      const { boardId, memberId } = await boardWithMember(org);
      const team = await post(org, '/api/v1/teams', { name: `Redundant ${suffix()}`, memberIds: [memberId] });
      await org.call('POST', `/api/v1/boards/${boardId}/teams`, { body: { teamId: team.id } });
      await createTicket(org, boardId, { assigneeId: memberId });
      return org.call('DELETE', `/api/v1/boards/${boardId}/teams/${team.id}`);
    },
  },
  // auth, types Query, one transaction (the type marked replaced, the replacement checked, its name freed, the job): the tickets move in the background.
  'a ticket type deleted with its tickets on three boards moved to the replacement': {
    budget: 3,
    status: 204,
    run: async () => {
      const fresh = await signupOrg();
      const first = await post(fresh, '/api/v1/boards', { name: 'First' });
      const second = await post(fresh, '/api/v1/boards', { name: 'Second' });
      const doomed = await post(fresh, '/api/v1/boards', { name: 'Doomed' });
      const bug = await post(fresh, '/api/v1/ticket-types', { name: 'Bug', color: '#FF0000' });
      const fallback = (await fresh.call('GET', '/api/v1/ticket-types/default')).body;
      await createTicket(fresh, first.id, { typeId: bug.id });
      await createTicket(fresh, first.id, { typeId: bug.id, statusId: (await statusOf(fresh, 'DONE')).id });
      await createTicket(fresh, second.id, { typeId: bug.id, statusId: (await statusOf(fresh, 'IN_PROGRESS')).id });
      await createTicket(fresh, doomed.id, { typeId: bug.id });
      await fresh.call('DELETE', `/api/v1/boards/${doomed.id}`);
      const deletedTicket = await createTicket(fresh, first.id, { typeId: bug.id });
      await fresh.call('DELETE', `/api/v1/boards/${first.id}/tickets/${deletedTicket.id}`);
      await createTicket(fresh, first.id);
      return fresh.call('DELETE', `/api/v1/ticket-types/${bug.id}?replacementTypeId=${fallback.id}`);
    },
  },
  // Ticket structure.
  // The parent read, the board counter, configuration, the assignee, the transaction.
  'a subticket created with an assignee': {
    budget: 6,
    status: 201,
    run: async (org) => org.call('POST', `/api/v1/boards/${org.boardId}/tickets/${(await freshTicket(org)).id}/subtickets`, { body: { title: 'Child', assigneeId: org.adminId } }),
  },
  'the subtickets of a standalone ticket (none to read)': {
    budget: 3,
    run: async (org) => org.call('GET', `/api/v1/boards/${org.boardId}/tickets/${(await freshTicket(org)).id}/subtickets`),
  },
  // The ticket and configuration, the parent, one transaction; the Query of the tickets that wait for it (readiness recounted before the answer).
  'a subticket deleted: it leaves its parent in the same transaction': {
    budget: 6,
    status: 204,
    run: async (org) => {
      const parent = await freshTicket(org);
      const child = (await post(org, `/api/v1/boards/${org.boardId}/tickets/${parent.id}/subtickets`, { title: 'Doomed child' })).data;
      return org.call('DELETE', `/api/v1/boards/${org.boardId}/tickets/${child.id}`);
    },
  },
  'the completion check of a ticket without subtickets (the ticket read only)': {
    budget: 2,
    run: async (org) => org.call('GET', `/api/v1/boards/${org.boardId}/tickets/${(await freshTicket(org)).id}/completion-check`),
  },
  // Ticket lists. A board whose live tickets fit in one page is read whole by status category:
  // auth, then board ∥ configuration ∥ column counts, then one Query per category shown.
  'a board list that fits in one page, the default (ACTIVE only)': {
    budget: 4 + 1,
    run: async () => {
      const w = await listWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boards[0]}/tickets?limit=100`);
    },
  },
  'the same list with PLANNING: one Query more': {
    budget: 4 + 2,
    run: async () => {
      const w = await listWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boards[0]}/tickets?limit=100&includePlanning=true`);
    },
  },
  'the same list with archived tickets: one Query more': {
    budget: 4 + 2,
    run: async () => {
      const w = await listWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boards[0]}/tickets?limit=100&includeArchived=true`);
    },
  },
  'the same list with every category: one Query for the whole board': {
    budget: 4 + 1,
    run: async () => {
      const w = await listWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boards[0]}/tickets?limit=100&includePlanning=true&includeArchived=true`);
    },
  },
  'a board list of two statuses: one Query per status': {
    budget: 4 + 2,
    run: async () => {
      const w = await listWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boards[0]}/tickets?statusId=${(await statusOf(w.org, 'IN_PROGRESS')).id},${(await statusOf(w.org, 'BLOCKED')).id}`);
    },
  },
  // One facet filter: auth, board ∥ configuration, the facet's entries (one Query), the page's tickets (one BatchGetItem).
  'a board list filtered by assignee': {
    budget: 5,
    run: async () => {
      const w = await listWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boards[0]}/tickets?assigneeId=${w.member.id}`);
    },
  },
  // GET /issues: auth, boards ∥ configuration, one tickets Query per visible board (in parallel).
  'the cross-board list of an administrator who sees three boards': {
    budget: 6,
    run: async () => (await listWorld()).org.call('GET', '/api/v1/issues'),
  },
  'the cross-board list narrowed to two boards': {
    budget: 5,
    run: async () => {
      const w = await listWorld();
      return w.org.call('GET', `/api/v1/issues?boardId=${w.boards[0]},${w.boards[1]}`);
    },
  },
  'the cross-board list narrowed to one board': {
    budget: 4,
    run: async () => {
      const w = await listWorld();
      return w.org.call('GET', `/api/v1/issues?boardId=${w.boards[0]}`);
    },
  },
  'the cross-board list of a team member who sees one board': {
    budget: 4,
    run: async () => {
      const w = await listWorld();
      return api('GET', '/api/v1/issues', { token: w.member.token, org: w.org.slug });
    },
  },
  // auth, boards ∥ configuration, the caller's assignee entries on each board (one Query here), the page's tickets.
  'the cross-board list of the tickets assigned to the caller, in an organization of one board': {
    budget: 5,
    run: async () => {
      const fresh = await signupOrg();
      const board = await post(fresh, '/api/v1/boards', { name: 'Only board' });
      await createTicket(fresh, board.id, { statusId: (await statusOf(fresh, 'IN_PROGRESS')).id, assigneeId: fresh.adminId });
      return fresh.call('GET', '/api/v1/issues?assignedToMe=true');
    },
  },
  // The column-by-column path of a board list: auth, board ∥ configuration ∥ column counts, then
  // one Query per column the page reaches (earlier columns skipped by their counts).
  'an empty board\'s list: read whole (one ACTIVE Query), not by column': {
    budget: 5,
    run: async (org) => org.call('GET', `/api/v1/boards/${(await post(org, '/api/v1/boards', { name: `Empty ${suffix()}` })).id}/tickets`),
  },
  'page 1 of one column': {
    budget: 5,
    run: async () => {
      const w = await columnWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets?statusId=${w.done}&limit=5`);
    },
  },
  'page 6 of one column': {
    budget: 5,
    run: async () => {
      const w = await columnWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets?statusId=${w.done}&limit=5&page=6`);
    },
  },
  'page 1 of the default list: the first column only': {
    budget: 5,
    run: async () => {
      const w = await columnWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets?limit=5`);
    },
  },
  'page 2 of the default list: two columns, in parallel': {
    budget: 6,
    run: async () => {
      const w = await columnWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets?limit=5&page=2`);
    },
  },
  'page 3 of the default list: one column, the two before it skipped by their counts': {
    budget: 5,
    run: async () => {
      const w = await columnWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets?limit=5&page=3`);
    },
  },
  'a page past the end of the default list: no column read': {
    budget: 4,
    run: async () => {
      const w = await columnWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets?limit=5&page=4`);
    },
  },
  'a large board\'s list with any other filter: the full-read path': {
    budget: 4,
    run: async () => {
      const w = await columnWorld();
      return w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets?limit=5&externalReference=ticket`);
    },
  },
  // A search once the events function has indexed every ticket: auth, board ∥ configuration, the
  // organization's pending tickets (none), one term Query per word (one word: its first entries ∥
  // its COUNT ∥ the column counts, in case most of the board matches), the page's tickets.
  'a large board\'s search: the search index': {
    budget: 8,
    run: async () => {
      const w = await columnWorld();
      // Index what the events function has not reached yet, as it would.
      for (const marker of (await db().entities.searchPending.query.byOrganization({ orgId: w.org.orgId }).go()).data) await indexTicketSearch(w.org.orgId, marker.ticketId, systemClock);
      // A ticket the events function was indexing at that moment is finished by it.
      const pending = await waitUntil(() => db().entities.searchPending.query.byOrganization({ orgId: w.org.orgId }).go(), (read) => read.data.length === 0);
      expect(pending.data).toEqual([]);
      return w.org.call('GET', `/api/v1/boards/${w.boardId}/tickets?limit=5&search=ticket`);
    },
  },
  // GET /issues over large boards: auth; boards ∥ configuration; the small board's ACTIVE Query ∥
  // the large boards' counts; one column read per large board.
  'the cross-board list over two large boards and a small one': {
    budget: 8,
    run: async () => (await largeBoardsWorld()).call('GET', '/api/v1/issues?limit=3'),
  },
  // As the default list, plus one Query of the organization's lapsed claims.
  'the claimable cross-board list over two large boards and a small one': {
    budget: 9,
    run: async () => (await largeBoardsWorld()).call('GET', '/api/v1/issues?claimable=true&limit=3'),
  },
  // Teams.
  'a team created without members': { budget: 2, run: (org) => org.call('POST', '/api/v1/teams', { body: { name: `Plain ${suffix()}` } }) },
  'a team refused for an unknown member: nothing written': {
    budget: 2,
    status: 400,
    run: (org) => org.call('POST', '/api/v1/teams', { body: { name: `Ghosts ${suffix()}`, memberIds: [org.memberId, 'usr_01HXXXXXXXXXXXXXXXXXXXXXXX'] } }),
  },
  // auth, the conditional update, the Query of the organization's boards (none carries the team).
  'a team on no board renamed and recolored': {
    budget: 3,
    run: async (org) => org.call('PATCH', `/api/v1/teams/${(await post(org, '/api/v1/teams', { name: `Old ${suffix()}` })).id}`, { body: { name: `New ${suffix()}`, color: '#ABCDEF' } }),
  },
  // Idempotency-Key (lib/db/idempotency.ts): a conditional Put before the work, an Update after it.
  'a POST with an Idempotency-Key: the work plus 2': {
    budget: 4,
    run: (org) => org.call('POST', '/api/v1/customers', { body: { name: `Keyed ${suffix()}` }, headers: { 'idempotency-key': `budget-${suffix()}` } }),
  },
  // The Put that finds the key taken, and one consistent Get of the kept answer: no work done again.
  'the same POST sent again with its Idempotency-Key: 3 (auth, the Put, the Get)': {
    budget: 3,
    run: async (org) => {
      const request = { body: { name: `Replayed ${suffix()}` }, headers: { 'idempotency-key': `budget-${suffix()}` } };
      await org.call('POST', '/api/v1/customers', request);
      return org.call('POST', '/api/v1/customers', request);
    },
  },
  'a team patched with the values it has: one write, nothing for boards': {
    budget: 2,
    run: async (org) => {
      const name = `Steady ${suffix()}`;
      const team = await post(org, '/api/v1/teams', { name, color: '#101010' });
      return org.call('PATCH', `/api/v1/teams/${team.id}`, { body: { name } });
    },
  },
};

describe('round-trip budget of every endpoint', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await buildOrgFixture();
  }, 60_000);

  it('has a budget for every route of the route table', () => {
    const routes = httpGroups().flatMap(routeKeysOf).sort();
    expect(Object.keys(probes).sort()).toEqual(routes);
  });

  it.each(Object.entries(probes))('%s stays within its budget', async (_routeKey, probe) => {
    const response = await probe.run(org);
    if (probe.status) expect(response.status, JSON.stringify(response.body)).toBe(probe.status);
    else expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
    if (probe.budget > 0) expect(response.roundTrips).toBeGreaterThan(0);
    if (probe.atMost) expect(response.roundTrips).toBeLessThanOrEqual(probe.budget);
    else expect(response.roundTrips).toBe(probe.budget);
  });

  it.each(Object.entries(scenarios))('%s', async (_scenario, probe) => {
    const response = await probe.run(org);
    if (probe.status) expect(response.status, JSON.stringify(response.body)).toBe(probe.status);
    else expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
    expect(response.roundTrips).toBe(probe.budget);
  });

  it('reports the read capacity each request consumed (x-db-read-units), which grows with the bytes it read', async () => {
    const board = await createBoard(org);
    const units = (response: ApiResponse) => Number(response.headers.get('x-db-read-units'));
    // On DynamoDB Local the capacity is asked for only when the request says so (it costs DynamoDB Local time).
    const list = (headers: Record<string, string>) => org.call('GET', `/api/v1/boards/${board.id}/tickets?includePlanning=true`, { headers });
    const empty = await list({ 'x-db-capacity': 'true' });
    expect(units(empty)).toBeGreaterThan(0);
    expect(units(await list({}))).toBe(0);
    for (let index = 0; index < 4; index += 1) await createTicket(org, board.id, { title: `Heavy ${index}`, description: 'x'.repeat(9_000) });
    const full = await list({ 'x-db-capacity': 'true' });
    expect(full.body.total).toBe(4);
    // Four items of about 9 KB: 36 KB, at least 4.5 read units eventually consistent (8 KB each).
    expect(units(full)).toBeGreaterThanOrEqual(units(empty) + 4.5);
  });

  it('adds six blockers at once to a blocked ticket, each in the round trips of one alone: no retry, no contention on its version', async () => {
    const board = await createBoard(org);
    const [ticket, ...blockers] = await Promise.all(Array.from({ length: 8 }, (_, index) => createTicket(org, board.id, { title: `Dependency race ${index}` })));
    const depend = (blockerId: string) => org.call('PUT', `/api/v1/boards/${board.id}/tickets/${ticket!.id}/dependencies/${blockerId}`);
    expect((await depend(blockers[0]!.id)).status).toBe(200);
    // Blocked now: an addition moves the count in place (one read-decide-write); a lost race would read and write again.
    const alone = await depend(blockers[1]!.id);
    const together = await Promise.all(blockers.slice(2).map((blocker) => depend(blocker.id)));
    expect(together.map((answer) => [answer.status, answer.roundTrips])).toEqual(together.map(() => [200, alone.roundTrips]));
    expect((await org.call('GET', `/api/v1/boards/${board.id}/tickets/${ticket!.id}`)).body.data.openBlockerCount).toBe(7);
  });

  it('authenticates an OAuth access token in one round trip (its record, user, organization and grant in one batch)', async () => {
    const grant = await createGrant(org, inject('baseUrl'));
    const response = await api('GET', '/api/v1/organization', { token: grant.accessToken, headers: { host: oauthHost(org) } });
    expect(response.status).toBe(200);
    expect(response.roundTrips).toBe(1);
  });

  it('authenticates an access token in one round trip, like a session', async () => {
    const { token } = await createToken(org, org.adminToken);
    await api('GET', '/api/v1/organization', { token, org: org.slug }); // first use records lastUsedAt
    const response = await api('GET', '/api/v1/organization', { token, org: org.slug });
    expect(response.roundTrips).toBe(1);
  });
});
