import { conflict, forbidden, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { transact, type TransactionEntities } from '../db/transact.js';
import type { PermissionGroupItem } from '../db/entities/index.js';
import { PERMISSIONS, requireAdmin, requireHeldPermissions, requirePermission } from './permissions.js';
import { directoryEntryOf } from './group-directory.js';

export function presentGroup(group: PermissionGroupItem) {
  return {
    id: group.groupId,
    name: group.name,
    color: group.color,
    type: group.type,
    permissions: [...group.permissions].sort(),
    isSystem: group.isSystem,
  };
}

export async function listGroups(ctx: DomainContext) {
  const { data } = await db().entities.permissionGroup.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' });
  return data.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.groupId.localeCompare(b.groupId)).map(presentGroup);
}

async function loadGroup(ctx: DomainContext, groupId: string): Promise<PermissionGroupItem> {
  const group = (await db().entities.permissionGroup.get({ orgId: ctx.org.orgId, groupId }).go()).data;
  if (!group) throw notFound('Permission group');
  return group;
}

export const getGroup = async (ctx: DomainContext, groupId: string) => presentGroup(await loadGroup(ctx, groupId));

const known = new Set<string>(PERMISSIONS);
function checkPermissions(permissions: string[]): string[] {
  permissions.forEach((permission, index) => {
    if (!known.has(permission)) throw invalidField(`permissions.${index}`, `Unknown permission ${permission}`);
  });
  return [...new Set(permissions)];
}

/**
 * Groups and the organization's permission map change together in one transaction,
 * which is what lets authentication resolve permissions from the organization item.
 * Each change writes only its own map entry (SET/REMOVE of `groupDirectory.<groupId>`), so
 * concurrent changes of different groups never conflict and never lose each other's entry.
 */
export async function createGroup(ctx: DomainContext, input: { name: string; color: string; type: 'INTERNAL' | 'CUSTOMER'; permissions: string[] }) {
  requirePermission(ctx, 'settings:manage-permission-groups');
  const permissions = checkPermissions(input.permissions);
  requireHeldPermissions(ctx, permissions);
  const at = ctx.clock.now().toISOString();
  const group: PermissionGroupItem = {
    orgId: ctx.org.orgId,
    groupId: newId('grp'),
    name: input.name,
    color: input.color,
    type: input.type,
    permissions,
    isSystem: false,
    createdAt: at,
    updatedAt: at,
  };
  await transact((e) => [e.permissionGroup.create(group).commit(), setDirectoryEntry(e, ctx.org.orgId, group)]);
  return presentGroup(group);
}

export async function updateGroup(ctx: DomainContext, groupId: string, input: { name?: string; color?: string; permissions?: string[] }) {
  requirePermission(ctx, 'settings:manage-permission-groups');
  const group = await loadGroup(ctx, groupId);
  if (group.systemKey === 'ADMINISTRATORS' && input.permissions) throw forbidden('The Administrators group always holds every permission');
  const permissions = input.permissions ? checkPermissions(input.permissions) : group.permissions;
  // A system group's name is what every member reads to know who holds what: only an ADMIN renames one.
  if (group.isSystem && input.name !== undefined && input.name !== group.name) requireAdmin(ctx, 'rename a system group');
  if (input.permissions) {
    // System groups (Members, Agents, Customers) are every new user's defaults: only an ADMIN reshapes them.
    if (group.isSystem) requireAdmin(ctx, "change a system group's permissions");
    requireHeldPermissions(ctx, permissions.filter((permission) => !group.permissions.includes(permission)));
  }
  const at = ctx.clock.now().toISOString();
  const updated: PermissionGroupItem = { ...group, ...input, permissions, updatedAt: at };
  await transact((e) => [
    e.permissionGroup
      .patch({ orgId: ctx.org.orgId, groupId })
      .set({ name: updated.name, color: updated.color, permissions, updatedAt: at })
      .commit(),
    setDirectoryEntry(e, ctx.org.orgId, updated),
  ]);
  return presentGroup(updated);
}

export async function deleteGroup(ctx: DomainContext, groupId: string): Promise<void> {
  requirePermission(ctx, 'settings:manage-permission-groups');
  const group = await loadGroup(ctx, groupId);
  if (group.isSystem) throw forbidden('System groups cannot be deleted');
  const { data: users } = await db().entities.user.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' });
  if (users.some((user) => user.permissionGroupIds?.includes(groupId))) {
    throw conflict('The group still has members; move them to another group first');
  }
  await transact((e) => [
    e.permissionGroup.delete({ orgId: ctx.org.orgId, groupId }).commit(),
    e.organization
      .patch({ orgId: ctx.org.orgId })
      .data((attr, op) => op.remove((attr.groupDirectory as Record<string, unknown>)[groupId]))
      .commit(),
  ]);
}

/** The organization's map entry of one group (its other entries are left as they are). */
function setDirectoryEntry(e: TransactionEntities, orgId: string, group: PermissionGroupItem) {
  return e.organization
    .patch({ orgId })
    .data((attr, op) => op.set((attr.groupDirectory as Record<string, unknown>)[group.groupId], directoryEntryOf(group)))
    .commit();
}
