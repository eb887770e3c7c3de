import { conflict, forbidden, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../core/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { transact } from '../db/transact.js';
import { batchGetMixed } from '../db/batch.js';
import type { PermissionGroupItem, Role, UserItem } from '../db/entities/index.js';
import { hashPassword } from '../identity/passwords.js';
import { requirePermission } from '../organizations/permissions.js';
import { paginate } from '../http/pagination.js';
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
    return paginate([presentUser(await loadUser(ctx.org.orgId, ctx.actor.userId))], query.page, query.limit);
  }
  const { data } = await db().entities.user.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' });
  const needle = query.search?.toLowerCase();
  const users = data
    .filter((user) => query.includeAgents || !user.isAgent)
    .filter((user) => !needle || user.name.toLowerCase().includes(needle) || user.email.includes(needle))
    .sort((a, b) => a.name.localeCompare(b.name) || a.userId.localeCompare(b.userId));
  return paginate(users.map(presentUser), query.page, query.limit);
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
  const groups = await resolveGroups(ctx, input.role, input.permissionGroupIds);
  if (input.role === 'CUSTOMER') {
    if (!input.customerId) throw invalidField('customerId', 'Required for a CUSTOMER user');
    const customer = (await db().entities.customer.get({ orgId: ctx.org.orgId, customerId: input.customerId }).go()).data;
    if (!customer) throw invalidField('customerId', 'Unknown customer');
  } else if (input.customerId) {
    throw invalidField('customerId', 'Only CUSTOMER users are linked to a customer');
  }
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
    permissionGroupIds: groups.map((group) => group.groupId),
    createdAt: at,
    updatedAt: at,
  };
  await transact(
    (e) => [e.userEmail.create({ orgId: ctx.org.orgId, email, userId: user.userId }).commit(), e.user.create(user).commit()],
    () => conflict('A user with this e-mail already exists', { field: 'email' }),
  );
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
  const user = await loadUser(ctx.org.orgId, userId);
  if (user.isAgent) throw notFound('User');
  if (userId === ctx.actor.userId && (input.isActive === false || (input.role && input.role !== 'ADMIN' && user.role === 'ADMIN'))) {
    throw forbidden('You cannot deactivate or demote yourself');
  }
  const role = input.role ?? user.role;
  if ((role === 'CUSTOMER') !== (user.role === 'CUSTOMER')) {
    throw invalidField('role', 'A user cannot move between customer and internal roles');
  }
  const groups = input.permissionGroupIds ? await resolveGroups(ctx, role, input.permissionGroupIds) : undefined;
  const at = ctx.clock.now().toISOString();
  const updated = await db()
    .entities.user.patch({ orgId: ctx.org.orgId, userId })
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.role !== undefined ? { role: input.role } : {}),
      ...(input.isActive !== undefined ? { isActive: input.isActive } : {}),
      ...(groups ? { permissionGroupIds: groups.map((group) => group.groupId) } : {}),
      updatedAt: at,
    })
    .go({ response: 'all_new' });
  return presentUser(updated.data as UserItem);
}

/**
 * The groups a user is put in: the given ones (which must exist and match the user kind),
 * else the system group of the role.
 */
async function resolveGroups(ctx: DomainContext, role: Role, groupIds: string[] | undefined): Promise<PermissionGroupItem[]> {
  const entities = db().entities;
  if (groupIds && groupIds.length > 0) {
    const unique = [...new Set(groupIds)];
    const found = (await batchGetMixed(
      unique.map((groupId) => ({ entity: entities.permissionGroup, key: { orgId: ctx.org.orgId, groupId } })),
    )) as (PermissionGroupItem | undefined)[];
    const wantedType = role === 'CUSTOMER' ? 'CUSTOMER' : 'INTERNAL';
    found.forEach((group, index) => {
      if (!group) throw invalidField(`permissionGroupIds.${index}`, 'Unknown permission group');
      if (group.type !== wantedType) throw invalidField(`permissionGroupIds.${index}`, `A ${role} user needs ${wantedType} groups`);
    });
    return found as PermissionGroupItem[];
  }
  const systemKey = role === 'ADMIN' ? 'ADMINISTRATORS' : role === 'CUSTOMER' ? 'CUSTOMERS' : 'MEMBERS';
  const { data } = await entities.permissionGroup.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' });
  const group = data.find((candidate) => candidate.systemKey === systemKey);
  return group ? [group] : [];
}
