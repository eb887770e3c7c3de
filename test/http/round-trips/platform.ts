import { inject } from 'vitest';
import { api, createMember, createToken, mailedToken, uniqueSlug } from '../../support/api.js';
import { call, consoleScript, freshIp, post, rawGet, suffix, type Probe } from '../../support/round-trips.js';

/** The platform's routes: health, the organization, people, teams, customers, tokens, OAuth, webhooks, the console. */
export const platformProbes = (): Record<string, Probe> => ({
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
});
