import { createMember, createToken, setPlan, signupOrg, type TestOrg } from './api.js';

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
  commentId: string;
  agentId: string;
  agentTokenId: string;
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
  const agent = await created(org, `/api/v1/organizations/${org.orgId}/agents`, { name: 'Fixture agent' });
  const agentToken = await created(org, `/api/v1/organizations/${org.orgId}/agents/${agent.id}/tokens`, { name: 'Fixture agent token' });
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
    commentId: comment.id,
    agentId: agent.id,
    agentTokenId: agentToken.id,
  };
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
    commentId: fixture.commentId,
    orgId: fixture.orgId,
    agentId: fixture.agentId,
    // No notification exists in a fresh fixture: an id that resolves nowhere is enough for the sweeps.
    notificationId: 'ntf_01J00000000000000000000000',
  };
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = ids[name];
    if (!id) throw new Error(`no fixture id for {${name}} in ${routeKey}`);
    return id;
  });
  return { method, path };
}
