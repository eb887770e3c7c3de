import type { DomainContext } from '../db/context.js';
import { requireHeldPermissions, requirePermission, requireFeature, groupDirectoryOf, permissionsOfGroups } from '../organizations/index.js';
import { assertBoardsExist } from '../boards/index.js';
import { createAccessToken, listAccessTokens, presentToken, revokeAccessToken, type TokenRestrictionsInput } from '../identity/index.js';
import { loadManagedAgent } from './agents.js';
import { consumeRateLimit } from '../db/rate-limit.js';

export const MINTS_PER_HOUR = 20;

export async function listAgentTokens(ctx: DomainContext, agentId: string) {
  await loadManagedAgent(ctx, agentId);
  return { tokens: (await listAccessTokens(ctx.org.orgId, agentId, 'AGENT')).map(presentToken) };
}

/**
 * Mints an agent token (plaintext returned once). The caller must hold every permission
 * the agent's groups grant, so no one can act through an agent beyond their own rights.
 */
export async function mintAgentToken(ctx: DomainContext, agentId: string, input: TokenRestrictionsInput) {
  const { agent } = await loadManagedAgent(ctx, agentId);
  requirePermission(ctx, 'agents:manage');
  requireFeature(ctx, 'AGENT_USERS');
  requireHeldPermissions(ctx, permissionsOfGroups(groupDirectoryOf(ctx.org), agent.permissionGroupIds ?? []), 'hand out a token with');
  await assertBoardsExist(ctx, input.allowedBoardIds ?? [], 'allowedBoardIds');
  await consumeRateLimit(ctx.org.orgId, `mint#${agentId}`, MINTS_PER_HOUR, 3600, ctx.clock.now());
  return createAccessToken(ctx, 'AGENT', agentId, input, { denyDelete: true });
}

/** Immediate (every request reads the credential); never plan-gated. */
export async function revokeAgentToken(ctx: DomainContext, agentId: string, tokenId: string): Promise<void> {
  await loadManagedAgent(ctx, agentId);
  await revokeAccessToken(ctx.org.orgId, agentId, 'AGENT', tokenId);
}
