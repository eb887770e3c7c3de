import { db } from '../../lib/db/service.js';
import { api, baseUrl, createMember, createToken, setPlan, signupOrg, type TestOrg } from './api.js';
import { createGrant } from './oauth.js';

/** An organization (PRO) holding one of every resource this service has so far. */
export interface OrgFixture extends TestOrg {
  boardId: string;
  teamId: string;
  customerId: string;
  /** A status created by the test (not mandatory, not default). */
  statusId: string;
  /** Every status of the organization (what PUT board statuses needs). */
  statusIds: string[];
  /** A ticket type created by the test (not the default). */
  typeId: string;
  groupId: string;
  memberId: string;
  memberToken: string;
  tokenId: string;
  labelId: string;
  customFieldId: string;
  /** A ticket on the fixture board (ACTIVE status), with one subticket and one comment. */
  ticketId: string;
  subticketId: string;
  /** A ticket the fixture ticket depends on. */
  blockerId: string;
  commentId: string;
  agentId: string;
  agentTokenId: string;
  /** A PENDING suggestion (agent → DONE) on the fixture ticket. */
  suggestionId: string;
  endpointId: string;
  /** A delivery of the endpoint (its ping). */
  deliveryId: string;
  /** A registered OAuth client and the administrator's grant of it. */
  oauthClientId: string;
  grantId: string;
  /** The administrator's running timer on the ticket, a time entry of theirs, a booking item. */
  timerId: string;
  entryId: string;
  bookingItemId: string;
  /** A milestone of the board (which has Milestones & Releases on). */
  milestoneId: string;
  /** A release of the board holding the milestone and the ticket. */
  releaseId: string;
  /** A wiki space linked to the board, a folder of it, a published page in the folder and the page's first version. */
  spaceId: string;
  folderId: string;
  pageId: string;
  versionId: string;
  /** A pending invitation (its mail waits in the outbox). */
  invitationId: string;
}

async function created(org: TestOrg, path: string, body: unknown): Promise<any> {
  const response = await org.call('POST', path, { body });
  if (response.status !== 201) throw new Error(`POST ${path} failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function buildOrgFixture(): Promise<OrgFixture> {
  const org = await signupOrg();
  await setPlan(org.slug, 'PRO');
  const member = await createMember(org, { name: 'Fixture Member' });
  const team = await created(org, '/api/v1/teams', { name: 'Fixture team', memberIds: [member.id] });
  const customer = await created(org, '/api/v1/customers', { name: 'Fixture customer', email: 'customer@fixture.test' });
  const board = await created(org, '/api/v1/boards', { name: 'Fixture board', teamIds: [team.id], customerIds: [customer.id] });
  const status = await created(org, '/api/v1/statuses', { name: 'Fixture status', color: '#112233', category: 'ACTIVE' });
  const type = await created(org, '/api/v1/ticket-types', { name: 'Fixture type', color: '#112233' });
  const group = await created(org, '/api/v1/permission-groups', { name: 'Fixture group', color: '#112233', permissions: ['tickets:edit'] });
  const token = await createToken(org, org.adminToken, { name: 'fixture token' });
  const statuses = await org.call('GET', '/api/v1/statuses');
  const inProgress = statuses.body.data.find((entry: { key: string }) => entry.key === 'IN_PROGRESS');
  const label = await created(org, '/api/v1/labels', { name: 'Fixture label', color: '#112233' });
  const field = await created(org, '/api/v1/custom-fields', { name: 'Fixture field', type: 'TEXT' });
  const tickets = `/api/v1/boards/${board.id}/tickets`;
  const ticket = (await created(org, tickets, { title: 'Fixture ticket', statusId: inProgress.id, labelIds: [label.id] })).data;
  const subticket = (await created(org, `${tickets}/${ticket.id}/subtickets`, { title: 'Fixture subticket' })).data;
  const comment = (await created(org, `${tickets}/${ticket.id}/comments`, { content: 'Fixture comment' })).data;
  const blocker = (await created(org, tickets, { title: 'Fixture blocker', statusId: inProgress.id })).data;
  const dependency = await org.call('PUT', `${tickets}/${ticket.id}/dependencies/${blocker.id}`);
  if (dependency.status !== 200) throw new Error(`fixture dependency: ${dependency.status} ${JSON.stringify(dependency.body)}`);
  const agent = await created(org, `/api/v1/organizations/${org.orgId}/agents`, { name: 'Fixture agent' });
  const agentToken = await created(org, `/api/v1/organizations/${org.orgId}/agents/${agent.id}/tokens`, { name: 'Fixture agent token' });
  const suggestionId = await pendingSuggestion(org, board.id, ticket.id, agent.id, agentToken.token);
  const webhookEndpoint = await created(org, '/api/v1/webhook-endpoints', { name: 'Fixture endpoint', url: 'https://hooks.example.com/fixture', events: ['ticket.created'] });
  const deliveryId = await pingDelivery(org, webhookEndpoint.id);
  const grant = await createGrant(org, baseUrl());
  const bookingItem = await created(org, '/api/v1/time-tracking/booking-items', { name: 'Fixture booking item' });
  await org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { features: { milestonesAndReleases: true } } });
  const milestone = await created(org, `/api/v1/boards/${board.id}/milestones`, { name: 'Fixture milestone', dueDate: '2027-01-01' });
  const release = await created(org, `/api/v1/boards/${board.id}/releases`, { name: 'Fixture release', version: '1.0.0', milestoneIds: [milestone.id] });
  const attached = await org.call('POST', `/api/v1/boards/${board.id}/releases/${release.id}/tickets`, { body: { ticketId: ticket.id } });
  if (attached.status !== 200) throw new Error(`fixture release ticket: ${attached.status} ${JSON.stringify(attached.body)}`);
  const space = await created(org, '/api/v1/wiki/spaces', { name: 'Fixture space', boardId: board.id });
  const wikiFolder = await created(org, `/api/v1/wiki/spaces/${space.id}/folders`, { name: 'Fixture folder' });
  const wikiPage = await created(org, `/api/v1/wiki/spaces/${space.id}/pages`, { title: 'Fixture page', content: 'Fixture content', folderId: wikiFolder.id, isPublished: true });
  const versions = await org.call('GET', `/api/v1/wiki/spaces/${space.id}/pages/${wikiPage.id}/versions`);
  const timer = await created(org, '/api/v1/time-tracking/timers', { ticketId: ticket.id });
  const entry = await created(org, '/api/v1/time-tracking/entries', { ticketId: ticket.id, durationMinutes: 15, description: 'Fixture entry' });
  const sync = await org.call('PUT', '/api/v1/time-tracking/sync-endpoint', { body: { url: 'https://booking.example.com/fixture' } });
  if (sync.status !== 200) throw new Error(`fixture sync endpoint: ${sync.status} ${JSON.stringify(sync.body)}`);
  const invitation = await created(org, '/api/v1/invitations', { email: 'invitee@fixture.test' });
  return {
    ...org,
    boardId: board.id,
    teamId: team.id,
    customerId: customer.id,
    statusId: status.id,
    statusIds: statuses.body.data.map((entry: { id: string }) => entry.id),
    typeId: type.id,
    groupId: group.id,
    memberId: member.id,
    memberToken: member.token,
    tokenId: token.id,
    labelId: label.id,
    customFieldId: field.id,
    ticketId: ticket.id,
    subticketId: subticket.id,
    blockerId: blocker.id,
    commentId: comment.id,
    agentId: agent.id,
    agentTokenId: agentToken.id,
    suggestionId,
    endpointId: webhookEndpoint.id,
    deliveryId,
    oauthClientId: grant.clientId,
    grantId: grant.grantId,
    timerId: timer.id,
    entryId: entry.id,
    bookingItemId: bookingItem.id,
    milestoneId: milestone.id,
    releaseId: release.id,
    spaceId: space.id,
    folderId: wikiFolder.id,
    pageId: wikiPage.id,
    versionId: versions.body.data[0].id,
    invitationId: invitation.id,
  };
}

/** The endpoint's ping delivery: its record is written before the ping answers 204. */
async function pingDelivery(org: TestOrg, endpointId: string): Promise<string> {
  const ping = await org.call('POST', `/api/v1/webhook-endpoints/${endpointId}/ping`);
  if (ping.status !== 204) throw new Error(`fixture ping: ${ping.status} ${JSON.stringify(ping.body)}`);
  const { data } = await db().entities.webhookDelivery.query.byEndpoint({ orgId: org.orgId, endpointId }).go();
  if (!data[0]) throw new Error('fixture ping: no delivery recorded');
  return data[0].deliveryId;
}

/**
 * A pending suggestion on the fixture ticket, recorded the real way: with Explainable Status
 * switched on for the moment, the agent (made a board member) tries to move the ticket to the
 * gated DONE. The board's features are restored afterwards.
 */
async function pendingSuggestion(org: TestOrg, boardId: string, ticketId: string, agentId: string, agentToken: string): Promise<string> {
  const statuses = (await org.call('GET', '/api/v1/statuses')).body.data as { id: string; key: string }[];
  const done = statuses.find((status) => status.key === 'DONE')!;
  await org.call('POST', `/api/v1/boards/${boardId}/members`, { body: { userId: agentId } });
  await org.call('PATCH', `/api/v1/boards/${boardId}`, { body: { features: { explainableStatus: true } } });
  const refused = await api('PATCH', `/api/v1/boards/${boardId}/tickets/${ticketId}/status`, { token: agentToken, org: org.slug, body: { statusId: done.id, reason: 'Fixture' } });
  await org.call('PATCH', `/api/v1/boards/${boardId}`, { body: { features: { explainableStatus: false } } });
  const suggestionId = refused.body?.error?.details?.suggestionId;
  if (refused.status !== 403 || typeof suggestionId !== 'string') throw new Error(`fixture suggestion: ${refused.status} ${JSON.stringify(refused.body)}`);
  return suggestionId;
}

/** Fills a route key's `{param}`s with the fixture's ids. */
export function pathFor(routeKey: string, fixture: OrgFixture): { method: string; path: string } {
  const [method, template] = routeKey.split(' ') as [string, string];
  const ids: Record<string, string> = {
    boardId: fixture.boardId,
    teamId: fixture.teamId,
    customerId: fixture.customerId,
    statusId: fixture.statusId,
    typeId: fixture.typeId,
    groupId: fixture.groupId,
    userId: fixture.memberId,
    tokenId: fixture.tokenId,
    slug: fixture.slug,
    labelId: fixture.labelId,
    customFieldId: fixture.customFieldId,
    ticketId: fixture.ticketId,
    subticketId: fixture.subticketId,
    blockerId: fixture.blockerId,
    commentId: fixture.commentId,
    orgId: fixture.orgId,
    agentId: fixture.agentId,
    // No notification exists in a fresh fixture: an id that resolves nowhere is enough for the sweeps.
    notificationId: 'ntf_01J00000000000000000000000',
    suggestionId: fixture.suggestionId,
    endpointId: fixture.endpointId,
    deliveryId: fixture.deliveryId,
    provider: 'github',
    grantId: fixture.grantId,
    timerId: fixture.timerId,
    entryId: fixture.entryId,
    bookingItemId: fixture.bookingItemId,
    milestoneId: fixture.milestoneId,
    releaseId: fixture.releaseId,
    spaceId: fixture.spaceId,
    folderId: fixture.folderId,
    pageId: fixture.pageId,
    versionId: fixture.versionId,
    invitationId: fixture.invitationId,
  };
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = ids[name];
    if (!id) throw new Error(`no fixture id for {${name}} in ${routeKey}`);
    return id;
  });
  // Required query parameters.
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const queries: Record<string, string> = {
    'GET /api/v1/oauth/me/organizations': `?client_id=${fixture.oauthClientId}`,
    'GET /api/v1/wiki/search': '?q=fixture',
    'GET /api/v1/spend': `?groupBy=agent&from=${day(300)}&to=${day(0)}`,
  };
  return { method, path: `${path}${queries[routeKey] ?? ''}` };
}

/** A valid body for each write route, built from the caller's own organization, so only the foreign id in the path can fail. */
export function writeBodyFor(routeKey: string, own: OrgFixture): unknown {
  const bodies: Record<string, unknown> = {
    'POST /api/v1/auth/password': { currentPassword: 'correct horse battery', newPassword: 'another password 1' },
    'POST /api/v1/users': { name: 'Probe', email: `probe-${Date.now()}@probe.test`, password: 'probe password 1', role: 'TEAM_MEMBER' },
    'PATCH /api/v1/users/{userId}': { name: 'Hijacked' },
    'POST /api/v1/users/me/tokens': { name: 'probe' },
    'PATCH /api/v1/organization': { name: 'Own org renamed' },
    'PUT /api/v1/organization/dispatch': { paused: false },
    'POST /api/v1/permission-groups': { name: 'Probe group', color: '#000000', permissions: [] },
    'PATCH /api/v1/permission-groups/{groupId}': { name: 'Hijacked' },
    'POST /api/v1/boards': { name: 'Probe board' },
    'PATCH /api/v1/boards/{boardId}': { name: 'Hijacked' },
    'POST /api/v1/boards/{boardId}/teams': { teamId: own.teamId },
    'POST /api/v1/boards/{boardId}/members': { userId: own.memberId },
    'PUT /api/v1/boards/{boardId}/statuses': { statusIds: own.statusIds },
    'PUT /api/v1/boards/{boardId}/transitions': { rules: [] },
    'POST /api/v1/statuses': { name: `Probe ${Date.now()}`, color: '#000000' },
    'POST /api/v1/statuses/reorder': { statusIds: own.statusIds },
    'PATCH /api/v1/statuses/{statusId}': { name: 'Hijacked' },
    'POST /api/v1/ticket-types': { name: `Probe ${Date.now()}`, color: '#000000' },
    'PATCH /api/v1/ticket-types/{typeId}': { name: 'Hijacked' },
    'POST /api/v1/teams': { name: 'Probe team' },
    'PATCH /api/v1/teams/{teamId}': { name: 'Hijacked' },
    'POST /api/v1/teams/{teamId}/members': { userId: own.memberId },
    'POST /api/v1/customers': { name: 'Probe customer' },
    'PATCH /api/v1/customers/{customerId}': { name: 'Hijacked' },
    'POST /api/v1/boards/{boardId}/tickets': { title: 'Probe' },
    'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}': { title: 'Hijacked' },
    'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/status': { statusId: own.statusIds[0] },
    'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/assign': { assigneeId: null },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/move': { targetBoardId: own.boardId },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/transition': { toStatusId: own.statusIds[0], reason: 'probe' },
    'PATCH /api/v1/boards/{boardId}/tickets/reorder': { ticketId: own.ticketId, position: 1 },
    'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/inline': { title: 'Hijacked' },
    'PUT /api/v1/boards/{boardId}/tickets/{ticketId}/custom-fields': { values: [{ customFieldId: own.customFieldId, value: 'x' }] },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/subtickets': { title: 'Probe' },
    'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/subtickets/{subticketId}/status': { statusId: own.statusIds[0] },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/convert-to-subticket': { parentTicketId: own.ticketId },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/comments': { content: 'Probe' },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/reports': { outcome: 'partial', summary: 'Probe', usage: { costMicros: 1 } },
    'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/comments/{commentId}': { content: 'Hijacked' },
    'POST /api/v1/labels': { name: `Probe ${Date.now()}`, color: '#000000' },
    'PATCH /api/v1/labels/{labelId}': { name: 'Hijacked' },
    'POST /api/v1/custom-fields': { name: `Probe ${Date.now()}`, type: 'TEXT' },
    'PATCH /api/v1/custom-fields/{customFieldId}': { name: 'Hijacked' },
    'POST /api/v1/organizations/{orgId}/agents': { name: 'Probe agent' },
    'PATCH /api/v1/organizations/{orgId}/agents/policies': { prsRequireHumanReview: true },
    'PATCH /api/v1/organizations/{orgId}/agents/{agentId}': { name: 'Hijacked' },
    'POST /api/v1/organizations/{orgId}/agents/{agentId}/tokens': { name: 'probe' },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim': {},
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/heartbeat': {},
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/directive': { action: 'pause' },
    'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/messages': { text: 'Probe' },
    'POST /api/v1/webhook-endpoints': { name: 'Probe endpoint', url: 'https://hooks.example.com/probe', events: ['ticket.created'] },
    'PATCH /api/v1/webhook-endpoints/{endpointId}': { name: 'Hijacked' },
    'POST /api/v1/time-tracking/timers': { ticketId: own.ticketId },
    'POST /api/v1/time-tracking/entries': { ticketId: own.ticketId, durationMinutes: 5 },
    'PATCH /api/v1/time-tracking/entries/{entryId}': { description: 'Hijacked' },
    'POST /api/v1/time-tracking/booking-items': { name: 'Probe item' },
    'PATCH /api/v1/time-tracking/booking-items/{bookingItemId}': { name: 'Hijacked' },
    'PUT /api/v1/time-tracking/sync-endpoint': { url: 'https://booking.example.com/probe' },
    'POST /api/v1/boards/{boardId}/milestones': { name: `Probe ${Date.now()}`, dueDate: '2027-01-01' },
    'PATCH /api/v1/boards/{boardId}/milestones/{milestoneId}': { name: 'Hijacked' },
    'POST /api/v1/boards/{boardId}/releases': { name: 'Probe release' },
    'PATCH /api/v1/boards/{boardId}/releases/{releaseId}': { name: 'Hijacked' },
    'POST /api/v1/boards/{boardId}/releases/{releaseId}/milestones': { milestoneId: own.milestoneId },
    'POST /api/v1/boards/{boardId}/releases/{releaseId}/tickets': { ticketId: own.ticketId },
    'POST /api/v1/wiki/spaces': { name: `Probe space ${Date.now()}` },
    'POST /api/v1/wiki/spaces/board/{boardId}': { name: 'Probe space' },
    'PATCH /api/v1/wiki/spaces/{spaceId}': { name: 'Hijacked' },
    'POST /api/v1/wiki/spaces/{spaceId}/link-board': { boardId: own.boardId },
    'POST /api/v1/wiki/spaces/{spaceId}/members': { userId: own.memberId, role: 'view' },
    'POST /api/v1/wiki/spaces/{spaceId}/pages': { title: 'Probe page' },
    'PATCH /api/v1/wiki/spaces/{spaceId}/pages/{pageId}': { title: 'Hijacked' },
    'POST /api/v1/wiki/spaces/{spaceId}/folders': { name: 'Probe folder' },
    'PATCH /api/v1/wiki/spaces/{spaceId}/folders/{folderId}': { name: 'Hijacked' },
  };
  return bodies[routeKey];
}
