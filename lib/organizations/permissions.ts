import { forbidden } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';

/** Every permission string the service checks (the API reference names them per endpoint). */
export const PERMISSIONS = [
  'tickets:create', 'tickets:edit', 'tickets:delete', 'tickets:add-secret-comments',
  'boards:create', 'boards:edit', 'boards:delete', 'boards:manage-members',
  'settings:manage-statuses', 'settings:manage-ticket-types', 'settings:manage-organization',
  'settings:manage-permission-groups',
  'users:manage', 'members:edit',
  'teams:create', 'teams:edit', 'teams:delete', 'teams:manage-members',
  'custom-fields:manage',
  'milestones:view', 'milestones:create', 'milestones:edit', 'milestones:delete',
  'releases:view', 'releases:create', 'releases:edit', 'releases:delete',
  'time-tracking:view', 'time-tracking:manage', 'time-tracking:approve',
  'wiki:view', 'wiki:edit', 'wiki:manage', 'wiki:create',
  'agents:manage',
  'webhooks:view', 'webhooks:manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const MEMBER_PERMISSIONS: Permission[] = [
  'tickets:create', 'tickets:edit', 'tickets:delete', 'tickets:add-secret-comments',
  'boards:create', 'milestones:view', 'milestones:create', 'milestones:edit',
  'releases:view', 'releases:create', 'releases:edit',
  'time-tracking:view', 'time-tracking:manage', 'wiki:view', 'wiki:edit', 'wiki:create', 'webhooks:view',
];

const AGENT_PERMISSIONS: Permission[] = [
  'tickets:create', 'tickets:edit', 'milestones:view', 'releases:view', 'time-tracking:view', 'time-tracking:manage', 'wiki:view',
];

const CUSTOMER_PERMISSIONS: Permission[] = ['tickets:create'];

export const SYSTEM_GROUPS = [
  { systemKey: 'ADMINISTRATORS', name: 'Administrators', color: '#D32F2F', type: 'INTERNAL', permissions: [...PERMISSIONS] },
  { systemKey: 'MEMBERS', name: 'Members', color: '#1976D2', type: 'INTERNAL', permissions: MEMBER_PERMISSIONS },
  { systemKey: 'AGENTS', name: 'Agents', color: '#7B1FA2', type: 'INTERNAL', permissions: AGENT_PERMISSIONS },
  { systemKey: 'CUSTOMERS', name: 'Customers', color: '#388E3C', type: 'CUSTOMER', permissions: CUSTOMER_PERMISSIONS },
] as const;

/** Administrators hold every permission; everyone else holds the union of their groups'. */
export function hasPermission(ctx: DomainContext, permission: Permission): boolean {
  return ctx.actor.isAdmin || ctx.actor.permissions.has(permission);
}

export function requirePermission(ctx: DomainContext, permission: Permission): void {
  if (!hasPermission(ctx, permission)) {
    throw forbidden(`Missing permission ${permission}`, 'FORBIDDEN', { permission });
  }
}

/**
 * No one grants what they do not hold (the rule docs/agents.md sets for agent tokens, applied to
 * every grant: roles, groups, permission sets). 403 FORBIDDEN naming the missing permissions.
 */
export function requireHeldPermissions(ctx: DomainContext, granted: Iterable<string>, what = 'grant'): void {
  if (ctx.actor.isAdmin) return;
  const missing = [...new Set(granted)].filter((permission) => !ctx.actor.permissions.has(permission)).sort();
  if (missing.length > 0) {
    throw forbidden(`You cannot ${what} permissions you do not hold: ${missing.join(', ')}`, 'FORBIDDEN', { missing });
  }
}

/** Only an ADMIN makes, changes or empowers an ADMIN (the role grants every permission and every board). */
export function requireAdmin(ctx: DomainContext, action: string): void {
  if (!ctx.actor.isAdmin) throw forbidden(`Only an administrator may ${action}`, 'FORBIDDEN', { requiredRole: 'ADMIN' });
}
