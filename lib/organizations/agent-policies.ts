import type { OrganizationItem } from '../db/entities/index.js';

/** Organization-wide agent policies (docs/agents.md), stored on the organization item and so read with every request. */
export interface AgentPolicies {
  statusTransitionsRequireApproval: string[];
  prsRequireHumanReview: boolean;
  /** Leases in a row that lapse before a ticket is quarantined (out of the ready queue); 0 turns quarantine off. */
  quarantineAfterLapses: number;
}

export const DEFAULT_AGENT_POLICIES: AgentPolicies = { statusTransitionsRequireApproval: ['DONE'], prsRequireHumanReview: false, quarantineAfterLapses: 3 };

/** The organization's agent policies (stored on the organization item, read with every request). */
export function agentPoliciesOf(org: OrganizationItem): AgentPolicies {
  const stored = (org.agentPolicies ?? {}) as Partial<AgentPolicies>;
  return {
    statusTransitionsRequireApproval: stored.statusTransitionsRequireApproval ?? [...DEFAULT_AGENT_POLICIES.statusTransitionsRequireApproval],
    prsRequireHumanReview: stored.prsRequireHumanReview ?? DEFAULT_AGENT_POLICIES.prsRequireHumanReview,
    quarantineAfterLapses: stored.quarantineAfterLapses ?? DEFAULT_AGENT_POLICIES.quarantineAfterLapses,
  };
}
