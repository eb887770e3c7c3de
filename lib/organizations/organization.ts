import { dispatchOf } from './dispatch.js';
import { listOutbox } from '../mail/index.js';
import { notFound } from '../core/errors.js';
import type { AnonymousContext, DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import type { OrganizationItem, Plan } from '../db/entities/index.js';
import { requirePermission } from './permissions.js';
import { featuresOf } from './plans.js';

export function presentOrganization(org: OrganizationItem) {
  return {
    id: org.orgId,
    slug: org.slug,
    name: org.name,
    plan: org.plan,
    features: featuresOf(org.plan),
    settings: {
      timeTrackingEnabled: org.timeTrackingEnabled,
      defaultTimeFactor: org.defaultTimeFactor,
      defaultMaxConcurrentClaims: org.defaultMaxConcurrentClaims,
    },
    dispatch: dispatchOf(org),
    createdAt: org.createdAt,
    updatedAt: org.updatedAt,
  };
}

/** The organization was read during authentication: no further round trip. */
export const getOrganization = (ctx: DomainContext) => presentOrganization(ctx.org);

export interface OrganizationSettingsInput {
  name?: string;
  settings?: { timeTrackingEnabled?: boolean; defaultTimeFactor?: number; defaultMaxConcurrentClaims?: number };
}

export async function updateOrganization(ctx: DomainContext, input: OrganizationSettingsInput) {
  requirePermission(ctx, 'settings:manage-organization');
  const updated = await db()
    .entities.organization.patch({ orgId: ctx.org.orgId })
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.settings?.timeTrackingEnabled !== undefined ? { timeTrackingEnabled: input.settings.timeTrackingEnabled } : {}),
      ...(input.settings?.defaultTimeFactor !== undefined ? { defaultTimeFactor: input.settings.defaultTimeFactor } : {}),
      ...(input.settings?.defaultMaxConcurrentClaims !== undefined
        ? { defaultMaxConcurrentClaims: input.settings.defaultMaxConcurrentClaims }
        : {}),
      updatedAt: ctx.clock.now().toISOString(),
    })
    .go({ response: 'all_new' });
  return presentOrganization(updated.data as OrganizationItem);
}

/** The platform operator sets an organization's plan (the API reference). */
export async function setPlan(ctx: AnonymousContext, slug: string, plan: Plan) {
  const entities = db().entities;
  const slugRecord = (await entities.organizationSlug.get({ slug }).go()).data;
  if (!slugRecord) throw notFound('Organization');
  const updated = await entities.organization
    .patch({ orgId: slugRecord.orgId })
    .set({ plan, updatedAt: ctx.clock.now().toISOString() })
    .go({ response: 'all_new' });
  return presentOrganization(updated.data as OrganizationItem);
}

/** The organization's outbox (lib/mail), for the platform operator. */
export async function organizationOutbox(slug: string, query: { page: number; limit: number }) {
  const slugRecord = (await db().entities.organizationSlug.get({ slug }).go()).data;
  if (!slugRecord) throw notFound('Organization');
  return listOutbox(slugRecord.orgId, query);
}
