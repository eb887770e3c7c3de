import { expect, inject, it } from 'vitest';
import { api, createMember, createToken, setPlan, signupOrg, type ApiResponse, type TestOrg, useInProcess } from '../../support/api.js';
import { db } from '../../../lib/db/service.js';
import { indexTicketSearch } from '../../../lib/tickets/search/index.js';
import { waitUntil } from '../../support/wait.js';
import { systemClock } from '../../../lib/core/clock.js';
import { createGrant } from '../../support/oauth.js';
import { createAgent, createBoard, createBoardMember, createOrg, createTeam, createTicket } from '../../support/factories.js';
import { boardSetup } from '../../support/tickets.js';
import { budgetTests, freshIp, freshTicket, oauthHost, post, suffix, type Probe } from '../../support/round-trips.js';

// A matrix: in process, through the same route table and handlers (test/support/api.ts).
useInProcess();

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

budgetTests('particular cases', scenarios, (fixture) => {
  it('reports the read capacity each request consumed (x-db-read-units), which grows with the bytes it read', async () => {
    const org = fixture();
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
    const org = fixture();
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
    const org = fixture();
    const grant = await createGrant(org, inject('baseUrl'));
    const response = await api('GET', '/api/v1/organization', { token: grant.accessToken, headers: { host: oauthHost(org) } });
    expect(response.status).toBe(200);
    expect(response.roundTrips).toBe(1);
  });

  it('authenticates an access token in one round trip, like a session', async () => {
    const org = fixture();
    const { token } = await createToken(org, org.adminToken);
    await api('GET', '/api/v1/organization', { token, org: org.slug }); // first use records lastUsedAt
    const response = await api('GET', '/api/v1/organization', { token, org: org.slug });
    expect(response.roundTrips).toBe(1);
  });
});
