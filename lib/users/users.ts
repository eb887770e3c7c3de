import { conflict, forbidden, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { guarded, transact, type TransactionEntities } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import type { Role, UserItem } from '../db/entities/index.js';
import { hashPassword } from '../core/passwords.js';
import { requireAdmin, requireHeldPermissions, requirePermission, groupDirectoryOf, permissionsOfGroups, systemGroupId } from '../organizations/index.js';
import { pageOf } from '../core/pages.js';
import { presentUser } from './present.js';

export async function getMe(ctx: DomainContext) {
  const user = await loadUser(ctx.org.orgId, ctx.actor.userId);
  return {
    ...presentUser(user),
    permissions: ctx.actor.isAdmin ? ['*'] : [...ctx.actor.permissions].sort(),
    organization: { id: ctx.org.orgId, slug: ctx.org.slug, name: ctx.org.name, plan: ctx.org.plan },
  };
}

export async function loadUser(orgId: string, userId: string): Promise<UserItem> {
  const user = (await db().entities.user.get({ orgId, userId }).go()).data;
  if (!user) throw notFound('User');
  return user;
}

/** People of the organization (agents are listed by the agents endpoints). Customers see only themselves. */
export async function listUsers(ctx: DomainContext, query: { page: number; limit: number; search?: string; includeAgents?: boolean }) {
  if (ctx.actor.role === 'CUSTOMER') {
    return pageOf([presentUser(await loadUser(ctx.org.orgId, ctx.actor.userId))], query.page, query.limit);
  }
  const { data } = await db().entities.user.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' });
  const needle = query.search?.toLowerCase();
  const users = data
    .filter((user) => query.includeAgents || !user.isAgent)
    .filter((user) => !needle || user.name.toLowerCase().includes(needle) || user.email.includes(needle))
    .sort((a, b) => a.name.localeCompare(b.name) || a.userId.localeCompare(b.userId));
  return pageOf(users.map(presentUser), query.page, query.limit);
}

export async function getUser(ctx: DomainContext, userId: string) {
  if (ctx.actor.role === 'CUSTOMER' && userId !== ctx.actor.userId) throw notFound('User');
  return presentUser(await loadUser(ctx.org.orgId, userId));
}

export interface CreateUserInput {
  name: string;
  email: string;
  password: string;
  role: Role;
  customerId?: string;
  permissionGroupIds?: string[];
}

/** Creates a person in the organization; the e-mail is unique per organization (conditional put). */
export async function createUser(ctx: DomainContext, input: CreateUserInput) {
  requirePermission(ctx, 'users:manage');
  if (input.role === 'ADMIN') requireAdmin(ctx, 'create an administrator');
  const groupIds = groupIdsFor(ctx, input.role, input.permissionGroupIds);
  requireMayAssignGroups(ctx, groupIds);
  if (input.role === 'CUSTOMER' && !input.customerId) throw invalidField('customerId', 'Required for a CUSTOMER user');
  if (input.role !== 'CUSTOMER' && input.customerId) throw invalidField('customerId', 'Only CUSTOMER users are linked to a customer');
  const at = ctx.clock.now().toISOString();
  const email = input.email.toLowerCase();
  const user: UserItem = {
    orgId: ctx.org.orgId,
    userId: newId('usr'),
    name: input.name,
    email,
    role: input.role,
    isActive: true,
    isAgent: false,
    customerId: input.customerId,
    passwordHash: await hashPassword(input.password),
    permissionGroupIds: groupIds,
    createdAt: at,
    updatedAt: at,
  };
  // One transaction: the e-mail reservation, the user, and checks that its customer and
  // groups exist (so a concurrent delete of either cannot leave the user dangling).
  await transact((e) => [
    guarded(e.userEmail.create({ orgId: ctx.org.orgId, email, userId: user.userId }).commit(), () =>
      conflict('A user with this e-mail already exists', { field: 'email' }),
    ),
    e.user.create(user).commit(),
    ...(input.customerId
      ? [
          guarded(e.customer.check({ orgId: ctx.org.orgId, customerId: input.customerId }).where((attr, op) => op.exists(attr.customerId)).commit(), () =>
            invalidField('customerId', 'Unknown customer'),
          ),
        ]
      : []),
    ...groupChecks(e, ctx.org.orgId, groupIds),
  ]);
  return presentUser(user);
}

export interface UpdateUserInput {
  name?: string;
  role?: Role;
  isActive?: boolean;
  permissionGroupIds?: string[];
}

export async function updateUser(ctx: DomainContext, userId: string, input: UpdateUserInput) {
  requirePermission(ctx, 'users:manage');
  return retryLostRaces(async () => {
    const user = await loadUser(ctx.org.orgId, userId);
    if (user.isAgent) throw notFound('User');
    if (user.role === 'ADMIN') requireAdmin(ctx, 'change an administrator');
    if (input.role === 'ADMIN') requireAdmin(ctx, 'make a user an administrator');
    if (userId === ctx.actor.userId && (input.isActive === false || (input.role && input.role !== 'ADMIN' && user.role === 'ADMIN'))) {
      throw forbidden('You cannot deactivate or demote yourself');
    }
    const role = input.role ?? user.role;
    if ((role === 'CUSTOMER') !== (user.role === 'CUSTOMER')) {
      throw invalidField('role', 'A user cannot move between customer and internal roles');
    }
    const groupIds = input.permissionGroupIds ? groupIdsFor(ctx, role, input.permissionGroupIds) : undefined;
    // Groups the user keeps were granted before; only the ones added are a new grant.
    if (groupIds) requireMayAssignGroups(ctx, groupIds.filter((groupId) => !(user.permissionGroupIds ?? []).includes(groupId)));
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.role !== undefined ? { role: input.role } : {}),
      ...(input.isActive !== undefined ? { isActive: input.isActive } : {}),
      ...(groupIds ? { permissionGroupIds: groupIds } : {}),
      updatedAt: ctx.clock.now().toISOString(),
    };
    await transact((e) => [
      guarded(
        e.user
          .patch({ orgId: ctx.org.orgId, userId })
          .set(changes)
          .where((attr, op) => op.eq(attr.updatedAt, user.updatedAt))
          .commit(),
        () => new LostRace('The user changed concurrently; retry'),
      ),
      ...groupChecks(e, ctx.org.orgId, groupIds ?? []),
    ]);
    return presentUser({ ...user, ...changes });
  });
}

/**
 * The groups a user is put in: the given ones (which must exist and match the user kind),
 * else the system group of the role. Answered from the organization's group directory,
 * read with the caller's credential, so it costs no round trip; the write that follows
 * checks in its transaction that each group still exists.
 */
export function groupIdsFor(ctx: DomainContext, role: Role, groupIds: string[] | undefined): string[] {
  const directory = groupDirectoryOf(ctx.org);
  if (groupIds && groupIds.length > 0) {
    const wantedType = role === 'CUSTOMER' ? 'CUSTOMER' : 'INTERNAL';
    groupIds.forEach((groupId, index) => {
      const entry = directory[groupId];
      if (!entry) throw invalidField(`permissionGroupIds.${index}`, 'Unknown permission group');
      if (entry.type !== wantedType) throw invalidField(`permissionGroupIds.${index}`, `A ${role} user needs ${wantedType} groups`);
    });
    return [...new Set(groupIds)];
  }
  const systemKey = role === 'ADMIN' ? 'ADMINISTRATORS' : role === 'CUSTOMER' ? 'CUSTOMERS' : 'MEMBERS';
  const groupId = systemGroupId(directory, systemKey);
  return groupId ? [groupId] : [];
}

/**
 * Putting someone in groups grants what the groups grant: the caller must hold all of it, and
 * only an ADMIN assigns the Administrators group (it stands for the whole organization).
 */
export function requireMayAssignGroups(ctx: DomainContext, groupIds: string[]): void {
  const directory = groupDirectoryOf(ctx.org);
  if (groupIds.some((groupId) => directory[groupId]?.systemKey === 'ADMINISTRATORS')) requireAdmin(ctx, 'assign the Administrators group');
  requireHeldPermissions(ctx, permissionsOfGroups(directory, groupIds));
}

/** Transaction items asserting that each group still exists when the user is written. */
export function groupChecks(e: TransactionEntities, orgId: string, groupIds: string[]) {
  return groupIds.map((groupId, index) =>
    guarded(
      e.permissionGroup
        .check({ orgId, groupId })
        .where((attr, op) => op.exists(attr.groupId))
        .commit(),
      () => invalidField(`permissionGroupIds.${index}`, 'Unknown permission group'),
    ),
  );
}
