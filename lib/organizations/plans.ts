import { forbidden } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import type { Plan } from '../db/entities/index.js';

export const FEATURES = ['AGENT_USERS', 'WEBHOOKS', 'TEAMS'] as const;
export type Feature = (typeof FEATURES)[number];

const PLAN_FEATURES: Record<Plan, readonly Feature[]> = {
  FREE: [],
  PRO: ['AGENT_USERS', 'WEBHOOKS', 'TEAMS'],
  ENTERPRISE: ['AGENT_USERS', 'WEBHOOKS', 'TEAMS'],
};

export const featuresOf = (plan: Plan): Feature[] => [...PLAN_FEATURES[plan]];

export const planIncludes = (plan: Plan, feature: Feature): boolean => PLAN_FEATURES[plan].includes(feature);

export function requireFeature(ctx: DomainContext, feature: Feature): void {
  if (!planIncludes(ctx.org.plan, feature)) {
    throw forbidden(`Your plan does not include ${feature}`, 'PLAN_FEATURE_REQUIRED', { feature, plan: ctx.org.plan });
  }
}
