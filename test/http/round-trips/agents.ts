import type { OrgFixture } from '../../support/fixtures.js';
import { call, post, suffix, type Probe } from '../../support/round-trips.js';

/** Agents (docs/agents.md): management reads the agent, its owner and groups, and its token count. */
export function agentProbes(): Record<string, Probe> {
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
