import { conflict, forbidden, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { batchGetMixed, type KeyRequest } from '../db/batch.js';
import { guarded, isConditionFailure, MAX_TRANSACTION_ITEMS, transact, type TransactionEntities } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import type { TeamItem, UserItem } from '../db/entities/index.js';
import { requirePermission, requireFeature } from '../organizations/index.js';
import { pageOf } from '../core/pages.js';
import { removeTeamFromBoards, renameTeamOnBoards } from '../boards/index.js';

export const DEFAULT_TEAM_COLOR = '#607D8B';

/**
 * A create writes the team plus two items per member (TeamMember, user `teamIds`) in one
 * TransactWriteItems, which holds at most 100 items: 1 + 2 × 49 = 99.
 */
export const MAX_MEMBERS_ON_CREATE = Math.floor((MAX_TRANSACTION_ITEMS - 1) / 2);

/** Members handled per transaction when a team is deleted (same arithmetic as on create). */
const MEMBERS_PER_DELETE_TRANSACTION = MAX_MEMBERS_ON_CREATE;


export function presentTeam(team: Omit<TeamItem, 'searchName'>) {
  return {
    id: team.teamId,
    name: team.name,
    color: team.color,
    memberCount: team.memberCount,
    createdAt: team.createdAt,
  };
}

const presentMember = (user: UserItem) => ({ id: user.userId, name: user.name, email: user.email });

/** Teams are internal structure: customer users never see them. */
function requireInternalActor(ctx: DomainContext): void {
  if (ctx.actor.role === 'CUSTOMER') throw forbidden('Customer users cannot read teams');
}

/** A user may join a team when they exist in the organization, are active and are not a customer user. */
const MEMBER_REQUIREMENT = 'Must be an active, non-customer user of the organization';

export async function listTeams(ctx: DomainContext, query: { page: number; limit: number; search?: string }) {
  requireInternalActor(ctx);
  const { data } = await db().entities.team.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' });
  const needle = query.search?.trim().toLowerCase();
  const teams = data
    .filter((team) => !needle || team.searchName.includes(needle))
    .sort((a, b) => a.name.localeCompare(b.name) || a.teamId.localeCompare(b.teamId));
  return pageOf(teams.map(presentTeam), query.page, query.limit);
}

export async function getTeam(ctx: DomainContext, teamId: string) {
  requireInternalActor(ctx);
  return loadTeamWithMembers(ctx.org.orgId, teamId);
}

/**
 * The team and its members: one consistent Query of the memberships, then one BatchGetItem
 * of the team together with the member users (a further one per 100 members beyond 99).
 */
async function loadTeamWithMembers(orgId: string, teamId: string) {
  const entities = db().entities;
  const { data: memberships } = await entities.teamMember.query.byTeam({ orgId, teamId }).go({ pages: 'all', consistent: true });
  const requests: KeyRequest[] = [
    { entity: entities.team, key: { orgId, teamId } },
    ...memberships.map((membership) => ({ entity: entities.user, key: { orgId, userId: membership.userId } })),
  ];
  // batchGetMixed sends more than 100 keys as parallel calls itself.
  const [team, ...users] = (await batchGetMixed(requests)) as [
    TeamItem | undefined,
    ...(UserItem | undefined)[],
  ];
  if (!team) throw notFound('Team');
  const members = users
    .filter((user): user is UserItem => user !== undefined)
    .sort((a, b) => a.name.localeCompare(b.name) || a.userId.localeCompare(b.userId))
    .map(presentMember);
  return { ...presentTeam(team), members };
}

export interface CreateTeamInput {
  name: string;
  color?: string;
  memberIds?: string[];
}

/**
 * One transaction: the team, a TeamMember per member and each member's `teamIds` (which
 * board access reads), so membership and access change together. The user updates carry
 * the membership requirement as their condition: an unknown, inactive or customer user
 * fails the transaction and is reported as `memberIds.N`.
 */
export async function createTeam(ctx: DomainContext, input: CreateTeamInput) {
  requireFeature(ctx, 'TEAMS');
  requirePermission(ctx, 'teams:create');
  const orgId = ctx.org.orgId;
  return retryLostRaces(async () => {
    const at = ctx.clock.now().toISOString();
    const requested = input.memberIds ?? [];
    const memberIds = [...new Set(requested)];
    if (memberIds.length > MAX_MEMBERS_ON_CREATE) {
      throw invalidField('memberIds', `At most ${MAX_MEMBERS_ON_CREATE} members on create; add more through the members endpoint`);
    }
    const team: Omit<TeamItem, 'searchName'> = {
      orgId,
      teamId: newId('team'),
      name: input.name,
      color: input.color ?? DEFAULT_TEAM_COLOR,
      memberCount: memberIds.length,
      createdAt: at,
      updatedAt: at,
    };
    const couldNotCreate = () => new LostRace('The team could not be created; retry');
    await transact((e) => [
      guarded(e.team.create(team).commit(), couldNotCreate),
      ...memberIds.map((userId) =>
        guarded(
          e.user
            .patch({ orgId, userId })
            .add({ teamIds: [team.teamId] })
            .set({ updatedAt: at })
            .where((attr, op) => `${op.eq(attr.isActive, true)} AND ${op.ne(attr.role, 'CUSTOMER')}`)
            .commit(),
          () => invalidField(`memberIds.${requested.indexOf(userId)}`, MEMBER_REQUIREMENT),
        ),
      ),
      ...memberIds.map((userId) => guarded(e.teamMember.create({ orgId, teamId: team.teamId, userId, createdAt: at }).commit(), couldNotCreate)),
    ]);
    return presentTeam(team);
  });
}

/** Renames or recolors a team; boards carry a copy of both, which is refreshed on change. */
export async function updateTeam(ctx: DomainContext, teamId: string, input: { name?: string; color?: string }) {
  requireFeature(ctx, 'TEAMS');
  requirePermission(ctx, 'teams:edit');
  const orgId = ctx.org.orgId;
  if (input.name === undefined && input.color === undefined) {
    const team = (await db().entities.team.get({ orgId, teamId }).go()).data;
    if (!team) throw notFound('Team');
    return presentTeam(team);
  }
  const at = ctx.clock.now().toISOString();
  let previous: TeamItem;
  try {
    const result = await db()
      .entities.team.patch({ orgId, teamId })
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.color !== undefined ? { color: input.color } : {}),
        updatedAt: at,
      })
      .go({ response: 'all_old' });
    previous = result.data as TeamItem;
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('Team');
    throw error;
  }
  const updated: TeamItem = { ...previous, name: input.name ?? previous.name, color: input.color ?? previous.color, updatedAt: at };
  if (updated.name !== previous.name || updated.color !== previous.color) {
    await renameTeamOnBoards(orgId, { teamId, name: updated.name, color: updated.color }, at);
  }
  return presentTeam(updated);
}

/**
 * Permanent delete. Each transaction takes members off the team (their `teamIds` and the
 * TeamMember item) and touches the team item: intermediate ones lower `memberCount`, the
 * last removes the team on condition that exactly the remaining members are left, so a
 * member added concurrently is never orphaned (a lost race: read the members again and go on). The team goes last, so an
 * interrupted delete can simply be repeated.
 */
export async function deleteTeam(ctx: DomainContext, teamId: string): Promise<void> {
  requireFeature(ctx, 'TEAMS');
  requirePermission(ctx, 'teams:delete');
  const orgId = ctx.org.orgId;
  await retryLostRaces(async () => {
    const at = ctx.clock.now().toISOString();
    const { data: memberships } = await db().entities.teamMember.query.byTeam({ orgId, teamId }).go({ pages: 'all', consistent: true });
    const batches = chunk(
      memberships.map((membership) => membership.userId),
      MEMBERS_PER_DELETE_TRANSACTION,
    );
    if (batches.length === 0) batches.push([]);
    for (const [position, userIds] of batches.entries()) {
      const isLast = position === batches.length - 1;
      // The team's own condition: it is missing, or (last batch) its members changed meanwhile.
      const teamRefused = notFound('Team');
      try {
        const changed = () => new LostRace('The team changed concurrently; retry');
        await transact((e) => [
          guarded(
            isLast
              ? e.team
                  .remove({ orgId, teamId })
                  .where((attr, op) => op.eq(attr.memberCount, userIds.length))
                  .commit()
              : e.team.patch({ orgId, teamId }).subtract({ memberCount: userIds.length }).set({ updatedAt: at }).commit(),
            () => teamRefused,
          ),
          ...userIds.map((userId) => guarded(leaveTeam(e, orgId, userId, teamId, at), changed)),
          ...userIds.map((userId) => guarded(e.teamMember.delete({ orgId, teamId, userId }).commit(), changed)),
        ]);
      } catch (error) {
        if (isLast && error === teamRefused) {
          const team = (await db().entities.team.get({ orgId, teamId }).go()).data;
          if (team) throw new LostRace('The team\'s members changed concurrently; retry');
        }
        throw error;
      }
    }
    await removeTeamFromBoards(orgId, teamId, at);
  });
}

/** The user's side of leaving a team: the team goes from their `teamIds` (which board access reads). */
const leaveTeam = (e: TransactionEntities, orgId: string, userId: string, teamId: string, at: string) =>
  e.user.patch({ orgId, userId }).delete({ teamIds: [teamId] }).set({ updatedAt: at }).commit();

/** Adds a member: the TeamMember item, the user's `teamIds` and the team's count change together. */
export async function addTeamMember(ctx: DomainContext, teamId: string, userId: string) {
  requirePermission(ctx, 'teams:manage-members');
  const orgId = ctx.org.orgId;
  const at = ctx.clock.now().toISOString();
  await transact((e) => [
    guarded(e.team.patch({ orgId, teamId }).add({ memberCount: 1 }).set({ updatedAt: at }).commit(), () => notFound('Team')),
    guarded(e.teamMember.create({ orgId, teamId, userId, createdAt: at }).commit(), () => conflict('The user is already a member of this team', { userId })),
    guarded(
      e.user
        .patch({ orgId, userId })
        .add({ teamIds: [teamId] })
        .set({ updatedAt: at })
        .where((attr, op) => `${op.eq(attr.isActive, true)} AND ${op.ne(attr.role, 'CUSTOMER')}`)
        .commit(),
      () => invalidField('userId', MEMBER_REQUIREMENT),
    ),
  ]);
  return loadTeamWithMembers(orgId, teamId);
}

/** Removes a member (404 when the user is not one): the reverse of `addTeamMember`, in one transaction. */
export async function removeTeamMember(ctx: DomainContext, teamId: string, userId: string): Promise<void> {
  requirePermission(ctx, 'teams:manage-members');
  const orgId = ctx.org.orgId;
  await retryLostRaces(async () => {
    const at = ctx.clock.now().toISOString();
    const changed = () => new LostRace('The team changed concurrently; retry');
    await transact((e) => [
      guarded(e.teamMember.remove({ orgId, teamId, userId }).commit(), () => notFound('Team member')),
      guarded(e.team.patch({ orgId, teamId }).subtract({ memberCount: 1 }).set({ updatedAt: at }).commit(), changed),
      guarded(leaveTeam(e, orgId, userId, teamId, at), changed),
    ]);
  });
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
