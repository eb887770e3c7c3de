import { describe, expect, it } from 'vitest';
import * as f from '../support/factories.js';
import { useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Every factory of test/support/factories.ts creates what it names with its defaults alone (the
 * defaults pass validation), so a test can rely on any of them for its data.
 */
describe('the test factories', () => {
  it('create one of each resource through the API with their defaults', async () => {
    const org = await f.createOrg({ plan: 'PRO' });
    const board = await f.createBoard(org);
    await org.call('PATCH', `/api/v1/boards/${board.id}`, { body: { features: { milestonesAndReleases: true } } });
    const ticket = await f.createTicket(org, board.id);
    const member = await f.createMemberWith(org, ['tickets:edit'], { boardIds: [board.id] });
    const agent = await f.createAgent(org, { boardIds: [board.id] });
    const space = await f.createWikiSpace(org);
    const created = {
      board,
      ticket,
      label: await f.createLabel(org),
      customField: await f.createCustomField(org),
      group: await f.createPermissionGroup(org, []),
      member,
      boardMember: await f.createBoardMember(org, board.id),
      agent,
      milestone: await f.createMilestone(org, board.id),
      customer: await f.createCustomer(org),
      team: await f.createTeam(org),
      ticketType: await f.createTicketType(org),
      status: await f.createStatus(org),
      comment: await f.createComment(org, board.id, ticket.id),
      release: await f.createRelease(org, board.id),
      endpoint: await f.createWebhookEndpoint(org),
      space,
      page: await f.createWikiPage(org, space.id),
    };
    for (const [name, value] of Object.entries(created)) expect(value.id, name).toMatch(/^[a-z]+_/);
    expect((await member.call('GET', `/api/v1/boards/${board.id}`)).status).toBe(200);
    expect((await agent.call('GET', `/api/v1/boards/${board.id}`)).status).toBe(200);
  });
});
