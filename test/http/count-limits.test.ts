import { describe, expect, it } from 'vitest';
import { api, type ApiResponse, type TestOrg, useInProcess } from '../support/api.js';
import { createAgent, createBoard, createOrg, createTicket } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/**
 * Every counted limit holds under simultaneous requests: of a burst that asks for more than the
 * room left, exactly the room succeeds, every other request is refused with the limit's answer
 * (or, for a limit kept by a transaction, a lost race's 409 CONFLICT), and the count stored is
 * the limit. One table, one row per limit; each row fills part of its room first, one request at
 * a time, then races the rest.
 */
interface Race {
  /** The limit the row holds. */
  limit: number;
  /** Fills `limit - room` places one at a time, then answers the burst's requests and how to count what exists. */
  prepare(org: TestOrg): Promise<{ attempt: (index: number) => Promise<ApiResponse>; count: () => Promise<number>; afterwards?: () => Promise<void> }>;
  /** Places left before the burst, and how many requests race for them. */
  room: number;
  burst: number;
  /** The status and codes a refused request may answer. */
  refused: { status: number[]; codes: string[]; details?: Record<string, unknown> };
}

const agentsOf = (org: TestOrg) => `/api/v1/organizations/${org.orgId}/agents`;
const HOOKS = '/api/v1/webhook-endpoints';
const hook = (name: string) => ({ name, url: 'https://hooks.example.com/work', events: ['ticket.created', 'ticket.claimed'] });

const races: Record<string, Race> = {
  'live agents of an organization (25)': {
    limit: 25,
    room: 2,
    burst: 6,
    refused: { status: [403, 409], codes: ['AGENT_LIMIT_REACHED', 'CONFLICT'] },
    async prepare(org) {
      for (let index = 0; index < 23; index += 1) expect((await org.call('POST', agentsOf(org), { body: { name: `Agent ${index}` } })).status).toBe(201);
      return {
        attempt: (index) => org.call('POST', agentsOf(org), { body: { name: `Racer ${index}` } }),
        count: async () => (await org.call('GET', agentsOf(org))).body.length,
      };
    },
  },
  'webhook endpoints of an organization (20)': {
    limit: 20,
    room: 3,
    burst: 6,
    refused: { status: [409], codes: ['CONFLICT'], details: { limit: 20 } },
    async prepare(org) {
      for (let index = 0; index < 17; index += 1) expect((await org.call('POST', HOOKS, { body: hook(`Hook ${index}`) })).status).toBe(201);
      return {
        attempt: (index) => org.call('POST', HOOKS, { body: hook(`Racer ${index}`) }),
        count: async () => (await org.call('GET', HOOKS)).body.length,
        // A delete frees a place, and only one.
        async afterwards() {
          const all = (await org.call('GET', HOOKS)).body;
          expect((await org.call('DELETE', `${HOOKS}/${all[0].id}`)).status).toBe(204);
          expect((await org.call('POST', HOOKS, { body: hook('Back in') })).status).toBe(201);
          expect((await org.call('POST', HOOKS, { body: hook('One too many') })).status).toBe(409);
        },
      };
    },
  },
  'tokens minted for one agent in an hour (20)': {
    limit: 20,
    room: 20,
    burst: 26,
    refused: { status: [429], codes: ['RATE_LIMITED'] },
    async prepare(org) {
      const agent = await org.call('POST', agentsOf(org), { body: { name: 'Minter' } });
      expect(agent.status).toBe(201);
      const tokens = `${agentsOf(org)}/${agent.body.id}/tokens`;
      return {
        attempt: (index) => org.call('POST', tokens, { body: { name: `t${index}` } }),
        count: async () => (await org.call('GET', tokens)).body.tokens.length,
      };
    },
  },
  "an agent's concurrent claims (maxConcurrentClaims 2)": {
    limit: 2,
    room: 2,
    burst: 6,
    refused: { status: [403], codes: ['CLAIM_LIMIT_REACHED'] },
    async prepare(org) {
      const board = await createBoard(org);
      const agent = await createAgent(org, { settings: { maxConcurrentClaims: 2 }, boardIds: [board.id] });
      const tickets = await Promise.all(Array.from({ length: 6 }, () => createTicket(org, board.id)));
      return {
        attempt: (index) => api('POST', `/api/v1/boards/${board.id}/tickets/${tickets[index]!.id}/claim`, { token: agent.token, org: org.slug, body: {} }),
        count: async () => (await org.call('GET', `/api/v1/issues?claimedBy=${agent.id}`)).body.total,
      };
    },
  },
};

describe('counted limits under simultaneous requests', () => {
  it.each(Object.entries(races))('%s: exactly the room left succeeds', async (_limit, race) => {
    const org = await createOrg({ plan: 'PRO' });
    const { attempt, count, afterwards } = await race.prepare(org);
    expect(await count()).toBe(race.limit - race.room);
    const answers = await Promise.all(Array.from({ length: race.burst }, (_, index) => attempt(index)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(race.room);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused).toHaveLength(race.burst - race.room);
    for (const answer of refused) {
      expect(race.refused.status, JSON.stringify(answer.body)).toContain(answer.status);
      expect(race.refused.codes).toContain(answer.body.error.code);
      if (race.refused.details) expect(answer.body.error.details).toMatchObject(race.refused.details);
    }
    expect(await count()).toBe(race.limit);
    await afterwards?.();
  }, 60_000);
});
