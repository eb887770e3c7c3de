import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const PLANS = ['FREE', 'PRO', 'ENTERPRISE'] as const;
export type Plan = (typeof PLANS)[number];

/**
 * The organization is also the auth context: every authenticated request reads it in the
 * same BatchGetItem as the credential and the user. It therefore carries a compact copy of
 * each permission group (`groupDirectory`: type, permissions, system key), written in the
 * same transaction as the group itself, so resolving a caller's permissions, or checking
 * the groups a user is put in, costs no extra round trip.
 */
/** Live claims an agent may hold at once unless it or its organization says otherwise (README.md, Retries and limits: 1–50, default 3). */
export const DEFAULT_MAX_CONCURRENT_CLAIMS = 3;

export const Organization = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'organization', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    slug: { type: 'string', required: true },
    name: { type: 'string', required: true },
    plan: { type: PLANS, required: true, default: 'FREE' },
    timeTrackingEnabled: { type: 'boolean', required: true, default: true },
    defaultTimeFactor: { type: 'number', required: true, default: 1 },
    defaultMaxConcurrentClaims: { type: 'number', required: true, default: DEFAULT_MAX_CONCURRENT_CLAIMS },
    /** groupId → {type, permissions, systemKey} (denormalized from PermissionGroup, see above). */
    groupDirectory: { type: 'any', default: () => ({}) },
    /** Agent policies (docs/agents.md): {statusTransitionsRequireApproval, prsRequireHumanReview}; absent = defaults. */
    agentPolicies: { type: 'any' },
    /** The organization's dispatch breaker: {paused, reason, byId, byName, at} while thrown; absent otherwise (lib/tickets/claims/dispatch.ts). */
    dispatchPause: { type: 'any' },
    /**
     * Live (not deleted) agents: changed in the transaction that creates or deletes an agent,
     * guarded by the 25-agent limit, so the limit holds under concurrent creates.
     */
    liveAgentCount: { type: 'number' },
    /** Webhook endpoints of the organization (absent: count them; at most MAX_WEBHOOK_ENDPOINTS). */
    webhookEndpointCount: { type: 'number' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byId: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
export type OrganizationItem = EntityItem<ReturnType<typeof Organization>>;

/** Uniqueness of the subdomain slug, and slug → organization lookup. */
export const OrganizationSlug = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'orgSlug', version: '1', service: 'wm' },
  attributes: {
    slug: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
  },
  indexes: {
    bySlug: { pk: { field: 'pk', composite: ['slug'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
export type OrganizationSlugItem = EntityItem<ReturnType<typeof OrganizationSlug>>;
