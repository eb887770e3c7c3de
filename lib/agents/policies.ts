import { forbidden, invalidField } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { agentPoliciesOf, type AgentPolicies, hasPermission, requirePermission } from '../organizations/index.js';
import { requireSession } from '../identity/index.js';

/** Every status key of the organization except BACKLOG (moving back to the backlog is never gated). */
async function gateableStatusKeys(orgId: string): Promise<string[]> {
  const { data } = await db().entities.status.query.byOrg({ orgId }).go({ pages: 'all' });
  return [...new Set(data.map((status) => status.key))].filter((key) => key !== 'BACKLOG').sort();
}

async function ownsAnyAgent(ctx: DomainContext): Promise<boolean> {
  const { data } = await db().entities.user.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' });
  return data.some((user) => user.isAgent && !user.isDeleted && user.ownerId === ctx.actor.userId);
}

export async function getAgentPolicies(ctx: DomainContext) {
  requireSession(ctx);
  if (!hasPermission(ctx, 'agents:manage') && !(await ownsAnyAgent(ctx))) {
    throw forbidden('Only agents:manage or an agent owner may read the agent policies');
  }
  return { ...agentPoliciesOf(ctx.org), gateableStatusKeys: await gateableStatusKeys(ctx.org.orgId) };
}

export async function updateAgentPolicies(ctx: DomainContext, input: Partial<AgentPolicies>) {
  requireSession(ctx);
  requirePermission(ctx, 'agents:manage');
  const gateable = await gateableStatusKeys(ctx.org.orgId);
  const next = { ...agentPoliciesOf(ctx.org) };
  if (input.statusTransitionsRequireApproval !== undefined) {
    input.statusTransitionsRequireApproval.forEach((key, index) => {
      if (!gateable.includes(key)) {
        throw invalidField(`statusTransitionsRequireApproval.${index}`, key === 'BACKLOG' ? 'BACKLOG cannot be gated' : 'Unknown status key');
      }
    });
    next.statusTransitionsRequireApproval = [...new Set(input.statusTransitionsRequireApproval)];
  }
  if (input.prsRequireHumanReview !== undefined) next.prsRequireHumanReview = input.prsRequireHumanReview;
  if (input.quarantineAfterLapses !== undefined) next.quarantineAfterLapses = input.quarantineAfterLapses;
  await db()
    .entities.organization.patch({ orgId: ctx.org.orgId })
    .set({ agentPolicies: next, updatedAt: ctx.clock.now().toISOString() })
    .go({ response: 'none' });
  return { ...next, gateableStatusKeys: gateable };
}
