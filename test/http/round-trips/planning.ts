import type { OrgFixture } from '../../support/fixtures.js';
import { call, post, suffix, type Probe } from '../../support/round-trips.js';

export function releaseProbes(): Record<string, Probe> {
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

export function milestoneProbes(): Record<string, Probe> {
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
