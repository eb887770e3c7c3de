import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { idParam, optionalText, requiredText, tokenRestrictionsBody } from '../http/validation.js';
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent } from './agents.js';
import { listAgentTokens, mintAgentToken, revokeAgentToken } from './tokens.js';
import { getAgentPolicies, updateAgentPolicies } from './policies.js';
import { getAgentsOverview } from './overview.js';
import { agentPoliciesResult, agentResult, agentsOverviewResult } from './shapes.js';
import { createdTokenResult, tokenResult } from '../users/index.js';

const orgParams = z.object({ orgId: idParam });
const agentParams = z.object({ orgId: idParam, agentId: idParam });

/** Routes of the `agents` group (docs/agents.md). `{orgId}` is checked by the router (the caller's organization, else 404). */
export const agentRoutes: Routes = {
  'GET /api/v1/organizations/{orgId}/agents': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'List agents',
      result: z.array(agentResult),
      params: orgParams,
      handler: (ctx) => listAgents(ctx),
    }),
  ),
  'POST /api/v1/organizations/{orgId}/agents': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Create an agent',
      result: agentResult,
      errors: ['PLAN_FEATURE_REQUIRED', 'AGENT_LIMIT_REACHED'],
      status: 201,
      params: orgParams,
      body: z.strictObject({
        name: requiredText(100),
        description: optionalText(2000).nullable().optional(),
        ownerId: idParam.optional(),
        permissionGroupId: idParam.optional(),
      }),
      handler: (ctx, { body }) => createAgent(ctx, body),
    }),
  ),
  'GET /api/v1/organizations/{orgId}/agents/policies': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Get the agent policies',
      result: agentPoliciesResult,
      params: orgParams,
      handler: (ctx) => getAgentPolicies(ctx),
    }),
  ),
  'PATCH /api/v1/organizations/{orgId}/agents/policies': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Update the agent policies',
      result: agentPoliciesResult,
      params: orgParams,
      body: z.strictObject({
        statusTransitionsRequireApproval: z.array(z.string().min(1).max(100)).max(100).optional(),
        prsRequireHumanReview: z.boolean().optional(),
        quarantineAfterLapses: z.number().int().min(0).max(100).optional().meta({ description: 'Leases in a row that lapse before a ticket is quarantined; 0 turns quarantine off' }),
      }),
      handler: (ctx, { body }) => updateAgentPolicies(ctx, body),
    }),
  ),
  'GET /api/v1/organizations/{orgId}/agents/overview': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'What the agents did: claims, reports, closures',
      result: agentsOverviewResult,
      params: orgParams,
      handler: (ctx) => getAgentsOverview(ctx),
    }),
  ),
  'GET /api/v1/organizations/{orgId}/agents/{agentId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Get an agent',
      result: agentResult,
      params: agentParams,
      handler: (ctx, { params }) => getAgent(ctx, params.agentId),
    }),
  ),
  'PATCH /api/v1/organizations/{orgId}/agents/{agentId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Update an agent',
      result: agentResult,
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
        dispatchPaused: z.boolean().optional().meta({ description: 'While true, claim-next answers 204 with `X-Dispatch-Paused: agent` and named claims 409 DISPATCH_PAUSED; leases held go on' }),
        monthlyBudgetMicros: z.number().int().min(0).max(1e15).nullable().optional().meta({ description: 'Spend allowed per calendar month, US dollars × 10⁶; null: none' }),
      }),
      handler: (ctx, { params, body }) => updateAgent(ctx, params.agentId, body),
    }),
  ),
  'DELETE /api/v1/organizations/{orgId}/agents/{agentId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Delete an agent',
      status: 204,
      params: agentParams,
      handler: (ctx, { params }) => deleteAgent(ctx, params.agentId),
    }),
  ),
  'GET /api/v1/organizations/{orgId}/agents/{agentId}/tokens': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'List an agent\'s tokens',
      result: z.strictObject({ tokens: z.array(tokenResult) }),
      params: agentParams,
      handler: (ctx, { params }) => listAgentTokens(ctx, params.agentId),
    }),
  ),
  'POST /api/v1/organizations/{orgId}/agents/{agentId}/tokens': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Mint a token for an agent',
      result: createdTokenResult,
      errors: ['PLAN_FEATURE_REQUIRED', 'RATE_LIMITED'],
      status: 201,
      params: agentParams,
      body: tokenRestrictionsBody,
      handler: (ctx, { params, body }) => mintAgentToken(ctx, params.agentId, body),
    }),
  ),
  'DELETE /api/v1/organizations/{orgId}/agents/{agentId}/tokens/{tokenId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Revoke an agent\'s token',
      status: 204,
      params: z.object({ orgId: idParam, agentId: idParam, tokenId: idParam }),
      handler: (ctx, { params }) => revokeAgentToken(ctx, params.agentId, params.tokenId),
    }),
  ),
};
