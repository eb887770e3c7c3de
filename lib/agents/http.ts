import * as z from 'zod';
import { authenticated, type Routes } from '../http/router.js';
import { idParam, optionalText, requiredText } from '../http/validation.js';
import { tokenRestrictionsBody } from '../users/http.js';
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent } from './agents.js';
import { listAgentTokens, mintAgentToken, revokeAgentToken } from './tokens.js';
import { getAgentPolicies, updateAgentPolicies } from './policies.js';
import { getAgentsOverview } from './overview.js';
import { notFound } from '../core/errors.js';
import type { DomainContext } from '../core/context.js';

const BASE = '/api/v1/organizations/{orgId}/agents';

/** `{orgId}` must be the caller's organization; any other id is unknown (404, never reveals existence). */
function inOrg(ctx: DomainContext, orgId: string): void {
  if (orgId !== ctx.org.orgId) throw notFound('Organization');
}

const orgParams = z.object({ orgId: idParam });
const agentParams = z.object({ orgId: idParam, agentId: idParam });

/** Routes of the `agents` group (spec §4.14). */
export const agentRoutes: Routes = {
  [`GET ${BASE}`]: authenticated({
    params: orgParams,
    handler: (ctx, { params }) => {
      inOrg(ctx, params.orgId);
      return listAgents(ctx);
    },
  }),
  [`POST ${BASE}`]: authenticated({
    status: 201,
    params: orgParams,
    body: z.strictObject({
      name: requiredText(100),
      description: optionalText(2000).nullable().optional(),
      ownerId: idParam.optional(),
      permissionGroupId: idParam.optional(),
    }),
    handler: (ctx, { params, body }) => {
      inOrg(ctx, params.orgId);
      return createAgent(ctx, body);
    },
  }),
  [`GET ${BASE}/policies`]: authenticated({
    params: orgParams,
    handler: (ctx, { params }) => {
      inOrg(ctx, params.orgId);
      return getAgentPolicies(ctx);
    },
  }),
  [`PATCH ${BASE}/policies`]: authenticated({
    params: orgParams,
    body: z.strictObject({
      statusTransitionsRequireApproval: z.array(z.string().min(1).max(100)).max(100).optional(),
      prsRequireHumanReview: z.boolean().optional(),
    }),
    handler: (ctx, { params, body }) => {
      inOrg(ctx, params.orgId);
      return updateAgentPolicies(ctx, body);
    },
  }),
  [`GET ${BASE}/overview`]: authenticated({
    params: orgParams,
    handler: (ctx, { params }) => {
      inOrg(ctx, params.orgId);
      return getAgentsOverview(ctx);
    },
  }),
  [`GET ${BASE}/{agentId}`]: authenticated({
    params: agentParams,
    handler: (ctx, { params }) => {
      inOrg(ctx, params.orgId);
      return getAgent(ctx, params.agentId);
    },
  }),
  [`PATCH ${BASE}/{agentId}`]: authenticated({
    params: agentParams,
    body: z.strictObject({
      name: requiredText(100).optional(),
      description: optionalText(2000).nullable().optional(),
      ownerId: idParam.optional(),
      timeFactor: z.number().min(1).max(10).nullable().optional(),
      weeklyHoursCap: z.number().min(1).max(168).nullable().optional(),
      maxConcurrentClaims: z.number().int().min(1).max(50).nullable().optional(),
      gitIdentity: z.string().trim().max(254).nullable().optional(),
      isActive: z.boolean().optional(),
    }),
    handler: (ctx, { params, body }) => {
      inOrg(ctx, params.orgId);
      return updateAgent(ctx, params.agentId, body);
    },
  }),
  [`DELETE ${BASE}/{agentId}`]: authenticated({
    status: 204,
    params: agentParams,
    handler: async (ctx, { params }) => {
      inOrg(ctx, params.orgId);
      await deleteAgent(ctx, params.agentId);
    },
  }),
  [`GET ${BASE}/{agentId}/tokens`]: authenticated({
    params: agentParams,
    handler: (ctx, { params }) => {
      inOrg(ctx, params.orgId);
      return listAgentTokens(ctx, params.agentId);
    },
  }),
  [`POST ${BASE}/{agentId}/tokens`]: authenticated({
    status: 201,
    params: agentParams,
    body: tokenRestrictionsBody,
    handler: (ctx, { params, body }) => {
      inOrg(ctx, params.orgId);
      return mintAgentToken(ctx, params.agentId, body);
    },
  }),
  [`DELETE ${BASE}/{agentId}/tokens/{tokenId}`]: authenticated({
    status: 204,
    params: z.object({ orgId: idParam, agentId: idParam, tokenId: idParam }),
    handler: async (ctx, { params }) => {
      inOrg(ctx, params.orgId);
      await revokeAgentToken(ctx, params.agentId, params.tokenId);
    },
  }),
};
