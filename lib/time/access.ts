import { forbidden } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { requirePermission, type Permission } from '../organizations/index.js';

type TimePermission = Extract<Permission, `time-tracking:${string}`>;

/**
 * The door of every time-tracking operation: the organization has time tracking switched on
 * (`PATCH /api/v1/organization` settings; off → 403 TIME_TRACKING_DISABLED) and the caller
 * holds the permission, when the operation names one.
 */
export function enterTimeTracking(ctx: DomainContext, permission?: TimePermission): void {
  if (!ctx.org.timeTrackingEnabled) {
    throw forbidden('Time tracking is switched off for this organization', 'TIME_TRACKING_DISABLED');
  }
  if (permission) requirePermission(ctx, permission);
}
