import type { DomainContext } from '../db/context.js';
import type { OrganizationItem } from '../db/entities/index.js';
import { db } from '../db/service.js';
import { requirePermission } from './permissions.js';

/** The organization's dispatch breaker as stored (absent while it is not thrown). */
interface StoredPause {
  reason: string | null;
  byId: string;
  byName: string;
  at: string;
}

/** The organization's dispatch breaker as the API shows it. */
export function dispatchOf(org: OrganizationItem) {
  const pause = org.dispatchPause as StoredPause | undefined;
  return {
    paused: pause !== undefined,
    reason: pause?.reason ?? null,
    pausedBy: pause ? { id: pause.byId, name: pause.byName } : null,
    pausedAt: pause?.at ?? null,
  };
}

/** Whether the organization's breaker is thrown (read with every request: no round trip). */
export const organizationDispatchPaused = (org: OrganizationItem): boolean => org.dispatchPause !== undefined;

/**
 * PUT /api/v1/organization/dispatch: throws or lifts the organization's dispatch breaker. While
 * thrown, claim-next gives no agent new work and named claims are refused; leases held, their
 * heartbeats and releases, and every other write go on. Nothing is taken out of the ready queue,
 * so lifting it restores exactly what was. Throwing it again keeps who threw it first, with the new reason.
 */
export async function setOrganizationDispatch(ctx: DomainContext, input: { paused: boolean; reason?: string | undefined }) {
  requirePermission(ctx, 'agents:manage');
  const now = ctx.clock.now().toISOString();
  const before = ctx.org.dispatchPause as StoredPause | undefined;
  const patch = db().entities.organization.patch({ orgId: ctx.org.orgId });
  const pause: StoredPause = before
    ? { ...before, reason: input.reason ?? before.reason }
    : { reason: input.reason ?? null, byId: ctx.actor.userId, byName: ctx.actor.name, at: now };
  const updated = input.paused
    ? await patch.set({ dispatchPause: pause, updatedAt: now }).go({ response: 'all_new' })
    : await patch.set({ updatedAt: now }).remove(['dispatchPause']).go({ response: 'all_new' });
  return dispatchOf(updated.data as OrganizationItem);
}
