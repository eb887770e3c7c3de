import { forbidden, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { guarded, inTransactionChunks, transact } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { batchGetMixed } from '../db/batch.js';
import type { PermissionGroupItem, UserItem } from '../db/entities/index.js';
import { hasPermission, requireHeldPermissions, requirePermission, requireFeature, groupDirectoryOf, permissionsOfGroups, systemGroupId, counterDown, counterUp } from '../organizations/index.js';
import { requireSession, listAccessTokens } from '../identity/index.js';

export const MAX_LIVE_AGENTS = 25;

/** An agent as the API shows it (docs/agents.md). */
export function presentAgent(agent: UserItem, owner: UserItem | undefined, groups: Map<string, PermissionGroupItem>, tokenCount: number) {
  return {
    id: agent.userId,
    name: agent.name,
    description: agent.description ?? null,
    email: agent.email,
    isActive: agent.isActive,
    owner: owner ? { id: owner.userId, name: owner.name, email: owner.email } : null,
    timeFactor: agent.timeFactor ?? null,
    weeklyHoursCap: agent.weeklyHoursCap ?? null,
    maxConcurrentClaims: agent.maxConcurrentClaims ?? null,
    gitIdentity: agent.gitIdentity ?? null,
    dispatchPaused: agent.dispatchPaused === true,
    monthlyBudgetMicros: agent.monthlyBudgetMicros ?? null,
    tokenCount,
    lastSeenAt: agent.lastSeenAt ?? null,
    permissionGroups: [...(agent.permissionGroupIds ?? [])]
      .map((groupId) => groups.get(groupId))
      .filter((group): group is PermissionGroupItem => group !== undefined)
      .map((group) => ({ id: group.groupId, name: group.name, color: group.color }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)),
    createdAt: agent.createdAt,
  };
}

const isLiveAgent = (user: UserItem | undefined): user is UserItem => Boolean(user?.isAgent && !user.isDeleted);

/** Management entry check (docs/agents.md): a session JWT, never an access token. */
function enter(ctx: DomainContext): { manages: boolean } {
  requireSession(ctx);
  return { manages: hasPermission(ctx, 'agents:manage') };
}

async function orgUsers(orgId: string): Promise<UserItem[]> {
  return (await db().entities.user.query.byOrg({ orgId }).go({ pages: 'all' })).data;
}

async function orgGroups(orgId: string): Promise<Map<string, PermissionGroupItem>> {
  const { data } = await db().entities.permissionGroup.query.byOrg({ orgId }).go({ pages: 'all' });
  return new Map(data.map((group) => [group.groupId, group]));
}

async function loadUserItem(orgId: string, userId: string): Promise<UserItem | undefined> {
  return (await db().entities.user.get({ orgId, userId }).go()).data ?? undefined;
}

/** A live agent of the organization the caller may manage (agents:manage or its owner). 404 when not an agent. */
export async function loadManagedAgent(ctx: DomainContext, agentId: string): Promise<{ agent: UserItem; manages: boolean }> {
  const { agent, manages } = await loadManagedAgentWith(ctx, agentId);
  return { agent, manages };
}

/** As loadManagedAgent, reading another user (e.g. a new owner) in the same BatchGetItem. */
async function loadManagedAgentWith(ctx: DomainContext, agentId: string, otherUserId?: string) {
  const { manages } = enter(ctx);
  const orgId = ctx.org.orgId;
  const [agent, other] = otherUserId
    ? ((await batchGetMixed([
        { entity: db().entities.user, key: { orgId, userId: agentId } },
        { entity: db().entities.user, key: { orgId, userId: otherUserId } },
      ])) as (UserItem | undefined)[])
    : [await loadUserItem(orgId, agentId), undefined];
  if (!isLiveAgent(agent)) throw notFound('Agent');
  if (!manages && agent.ownerId !== ctx.actor.userId) throw forbidden('Only the agent owner or agents:manage may do this');
  return { agent, manages, other };
}

/** Owner, groups (one BatchGetItem) and token count (one Query) of one agent, then its presentation. */
async function present(ctx: DomainContext, agent: UserItem, knownOwner?: UserItem) {
  const orgId = ctx.org.orgId;
  const groupIds = [...(agent.permissionGroupIds ?? [])];
  const ownerId = knownOwner ? undefined : agent.ownerId;
  const [found, tokens] = await Promise.all([
    batchGetMixed([
      ...(ownerId ? [{ entity: db().entities.user, key: { orgId, userId: ownerId } }] : []),
      ...groupIds.map((groupId) => ({ entity: db().entities.permissionGroup, key: { orgId, groupId } })),
    ]),
    listAccessTokens(orgId, agent.userId, 'AGENT'),
  ]);
  const owner = knownOwner ?? (ownerId ? (found[0] as UserItem | undefined) : undefined);
  const groups = (found.slice(ownerId ? 1 : 0) as (PermissionGroupItem | undefined)[]).filter((group): group is PermissionGroupItem => group !== undefined);
  return presentAgent(agent, owner, new Map(groups.map((group) => [group.groupId, group])), tokens.length);
}

/** agents:manage sees every live agent; others the ones they own. A bare array, sorted by name. */
export async function listAgents(ctx: DomainContext) {
  const { manages } = enter(ctx);
  const [users, groups] = await Promise.all([orgUsers(ctx.org.orgId), orgGroups(ctx.org.orgId)]);
  const byId = new Map(users.map((user) => [user.userId, user]));
  const agents = users
    .filter(isLiveAgent)
    .filter((agent) => manages || agent.ownerId === ctx.actor.userId)
    .sort((a, b) => a.name.localeCompare(b.name) || a.userId.localeCompare(b.userId));
  const counts = await Promise.all(agents.map(async (agent) => (await listAccessTokens(ctx.org.orgId, agent.userId, 'AGENT')).length));
  return agents.map((agent, index) => presentAgent(agent, agent.ownerId ? byId.get(agent.ownerId) : undefined, groups, counts[index]!));
}

export async function getAgent(ctx: DomainContext, agentId: string) {
  const { agent } = await loadManagedAgent(ctx, agentId);
  return present(ctx, agent);
}

/** An owner must be an active, non-agent, non-customer, non-deleted member of the organization. */
function assertValidOwner(owner: UserItem | undefined): asserts owner is UserItem {
  if (!owner || owner.isAgent || owner.isDeleted || !owner.isActive || owner.role === 'CUSTOMER') {
    throw invalidField('ownerId', 'Must be an active member of the organization (not an agent or customer)');
  }
}

const agentLimitReached = () =>
  forbidden(`An organization holds at most ${MAX_LIVE_AGENTS} agents`, 'AGENT_LIMIT_REACHED', { limit: MAX_LIVE_AGENTS });

const agentChanged = () => new LostRace('The agent changed concurrently; retry');
const agentNotCreated = () => new LostRace('The agent could not be created; retry');
const ownerRequirement = () => invalidField('ownerId', 'Must be an active member of the organization (not an agent or customer)');

export interface CreateAgentInput {
  name: string;
  description?: string | null;
  ownerId?: string;
  permissionGroupId?: string;
}

export async function createAgent(ctx: DomainContext, input: CreateAgentInput) {
  enter(ctx);
  requirePermission(ctx, 'agents:manage');
  requireFeature(ctx, 'AGENT_USERS');
  return retryLostRaces(async () => {
    const directory = groupDirectoryOf(ctx.org);
    let groupId: string | undefined;
    if (input.permissionGroupId) {
      const entry = directory[input.permissionGroupId];
      if (!entry) throw invalidField('permissionGroupId', 'Unknown permission group');
      if (entry.type !== 'INTERNAL') throw invalidField('permissionGroupId', 'An agent needs an INTERNAL group');
      groupId = input.permissionGroupId;
    } else {
      groupId = systemGroupId(directory, 'AGENTS');
    }
    // The agent acts with its group's permissions: no one hands out more than they hold.
    if (groupId) requireHeldPermissions(ctx, permissionsOfGroups(directory, [groupId]), 'give an agent');
    // The counter came with authentication: a full organization is refused before any read (the transaction's guard holds it exactly).
    if ((ctx.org.liveAgentCount ?? 0) >= MAX_LIVE_AGENTS) throw agentLimitReached();
    const [users, groups] = await Promise.all([orgUsers(ctx.org.orgId), orgGroups(ctx.org.orgId)]);
    const ownerId = input.ownerId ?? ctx.actor.userId;
    const owner = users.find((user) => user.userId === ownerId);
    assertValidOwner(owner);
    const at = ctx.clock.now().toISOString();
    const userId = newId('usr');
    const agent: UserItem = {
      orgId: ctx.org.orgId,
      userId,
      name: input.name,
      // Synthetic and undeliverable (RFC 2606 .invalid): agents receive no mail and have no login.
      email: `agent-${userId.slice(4).toLowerCase()}@agents.invalid`,
      role: 'TEAM_MEMBER',
      isActive: true,
      isAgent: true,
      permissionGroupIds: groupId ? [groupId] : [],
      ownerId,
      ...(input.description ? { description: input.description } : {}),
      createdAt: at,
      updatedAt: at,
    };
    await transact((e) => [
      guarded(e.userEmail.create({ orgId: ctx.org.orgId, email: agent.email, userId }).commit(), agentNotCreated),
      guarded(e.user.create(agent).commit(), agentNotCreated),
      guarded(
        e.user
          .check({ orgId: ctx.org.orgId, userId: ownerId })
          .where((attr, op) => `${op.eq(attr.isActive, true)} AND ${op.eq(attr.isAgent, false)}`)
          .commit(),
        ownerRequirement,
      ),
      counterUp(e, ctx.org.orgId, 'liveAgentCount', MAX_LIVE_AGENTS, agentLimitReached),
      ...(groupId
        ? [guarded(e.permissionGroup.check({ orgId: ctx.org.orgId, groupId }).where((attr, op) => op.exists(attr.groupId)).commit(), () => invalidField('permissionGroupId', 'Unknown permission group'))]
        : []),
    ]);
    return presentAgent(agent, owner, groups, 0);
  });
}

export interface UpdateAgentInput {
  name?: string;
  description?: string | null;
  ownerId?: string;
  timeFactor?: number | null;
  weeklyHoursCap?: number | null;
  maxConcurrentClaims?: number | null;
  dispatchPaused?: boolean;
  monthlyBudgetMicros?: number | null;
  gitIdentity?: string | null;
  isActive?: boolean;
}

const NULLABLE_FIELDS = ['description', 'timeFactor', 'weeklyHoursCap', 'maxConcurrentClaims', 'gitIdentity', 'monthlyBudgetMicros'] as const;

export async function updateAgent(ctx: DomainContext, agentId: string, input: UpdateAgentInput) {
  return retryLostRaces(async () => {
    const { agent, manages, other } = await loadManagedAgentWith(ctx, agentId, input.ownerId);
    let owner: UserItem | undefined;
    if (input.ownerId !== undefined && input.ownerId !== agent.ownerId) {
      if (!manages) throw forbidden('Changing the owner needs agents:manage', 'FORBIDDEN', { permission: 'agents:manage' });
      owner = other;
      assertValidOwner(owner);
    }
    // The budget is the organization's cap on what the agent spends: its owner may not raise it.
    if (input.monthlyBudgetMicros !== undefined && (input.monthlyBudgetMicros ?? null) !== (agent.monthlyBudgetMicros ?? null) && !manages) {
      throw forbidden("Changing an agent's budget needs agents:manage", 'FORBIDDEN', { permission: 'agents:manage' });
    }
    const set: Partial<UserItem> = { updatedAt: ctx.clock.now().toISOString() };
    const remove: (typeof NULLABLE_FIELDS)[number][] = [];
    if (input.name !== undefined) set.name = input.name;
    if (input.isActive !== undefined) set.isActive = input.isActive;
    if (input.dispatchPaused !== undefined) set.dispatchPaused = input.dispatchPaused;
    if (owner) set.ownerId = owner.userId;
    for (const field of NULLABLE_FIELDS) {
      const value = input[field];
      if (value === undefined) continue;
      if (value === null || value === '') remove.push(field);
      else (set as Record<string, unknown>)[field] = value;
    }
    await transact((e) => [
      guarded(
        (remove.length > 0
          ? e.user.patch({ orgId: ctx.org.orgId, userId: agentId }).set(set).remove(remove)
          : e.user.patch({ orgId: ctx.org.orgId, userId: agentId }).set(set)
        )
          .where((attr, op) => op.eq(attr.updatedAt, agent.updatedAt))
          .commit(),
        agentChanged,
      ),
      ...(owner
        ? [guarded(e.user.check({ orgId: ctx.org.orgId, userId: owner.userId }).where((attr, op) => `${op.eq(attr.isActive, true)} AND ${op.eq(attr.isAgent, false)}`).commit(), ownerRequirement)]
        : []),
    ]);
    const after: UserItem = { ...agent, ...set };
    for (const field of remove) delete after[field];
    return present(ctx, after, owner);
  });
}

/** Soft delete: the record stays (history), the agent can never authenticate again, its tokens are deleted. */
export async function deleteAgent(ctx: DomainContext, agentId: string): Promise<void> {
  await retryLostRaces(async () => {
    const { agent } = await loadManagedAgent(ctx, agentId);
    const tokens = await listAccessTokens(ctx.org.orgId, agentId, 'AGENT');
    const at = ctx.clock.now().toISOString();
    // The counter exists once any agent was created through it (signup starts it at 0).
    const countsAgents = ctx.org.liveAgentCount !== undefined;
    // First the agent itself (which cuts every token off at once, authentication refuses a deleted
    // user) with as many token deletions as fit beside it; then the rest, one bounded transaction
    // each (deleting a deleted token changes nothing, so each step may simply be sent again).
    const [first = [], ...rest] = inTransactionChunks(tokens, countsAgents ? 2 : 1);
    await transact((e) => [
      guarded(
        e.user
          .patch({ orgId: ctx.org.orgId, userId: agentId })
          .set({ isDeleted: true, isActive: false, updatedAt: at })
          .where((attr, op) => op.eq(attr.updatedAt, agent.updatedAt))
          .commit(),
        agentChanged,
      ),
      ...(countsAgents ? [counterDown(e, ctx.org.orgId, 'liveAgentCount')] : []),
      ...first.map((token) => e.credential.delete({ lookupKey: token.lookupKey }).commit()),
    ]);
    for (const chunk of rest) await transact((e) => chunk.map((token) => e.credential.delete({ lookupKey: token.lookupKey }).commit()));
  });
}
