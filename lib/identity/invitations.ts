import { conflict, invalidField, notFound } from '../core/errors.js';
import { addSeconds, epochSeconds } from '../core/clock.js';
import { newId, randomSecret, safeEqual, sha256Hex } from '../core/ids.js';
import { config } from '../core/config.js';
import type { AnonymousContext, DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { guarded, transact } from '../db/transact.js';
import type { InvitationItem, Role, UserItem } from '../db/entities/index.js';
import { hashPassword } from '../core/passwords.js';
import { splitLinkToken } from './link-tokens.js';
import { issueSession } from './session-issuer.js';
import { requireAdmin, requirePermission } from '../organizations/index.js';
import { linkTo, sendMail } from '../mail/index.js';
import { groupChecks, groupIdsFor, presentUser, requireMayAssignGroups } from '../users/index.js';

/** How long an invitation's link works. */
export const INVITATION_DAYS = 7;

export interface InviteInput {
  email: string;
  role: Role;
  permissionGroupIds?: string[];
}

export function presentInvitation(item: InvitationItem) {
  return {
    id: item.invitationId,
    email: item.email,
    role: item.role,
    permissionGroupIds: item.permissionGroupIds,
    invitedBy: { id: item.invitedById, name: item.invitedByName },
    expiresAt: item.expiresAt,
    createdAt: item.createdAt,
  };
}

/**
 * Invites a person by e-mail into permission groups (the role's system group unless named):
 * the caller must be allowed to create that person directly (`users:manage`, and hold what
 * the groups grant). The link goes by mail (lib/mail); the invitation keeps only its secret's
 * hash. Mail that cannot be sent leaves no invitation behind.
 */
export async function createInvitation(ctx: DomainContext, input: InviteInput, requestOrigin: string) {
  requirePermission(ctx, 'users:manage');
  if (input.role === 'CUSTOMER') throw invalidField('role', 'Customers are created with POST /api/v1/users, linked to their customer');
  if (input.role === 'ADMIN') requireAdmin(ctx, 'invite an administrator');
  const groupIds = groupIdsFor(ctx, input.role, input.permissionGroupIds);
  requireMayAssignGroups(ctx, groupIds);
  const entities = db().entities;
  const email = input.email.toLowerCase();
  if ((await entities.userEmail.get({ orgId: ctx.org.orgId, email }).go()).data) {
    throw conflict('A user with this e-mail already exists', { field: 'email' });
  }
  const now = ctx.clock.now();
  const expiresAt = addSeconds(now, INVITATION_DAYS * 86_400);
  const secret = randomSecret();
  const invitation: InvitationItem = {
    orgId: ctx.org.orgId,
    invitationId: newId('inv'),
    email,
    role: input.role,
    permissionGroupIds: groupIds,
    invitedById: ctx.actor.userId,
    invitedByName: ctx.actor.name,
    secretHash: sha256Hex(secret),
    expiresAt: expiresAt.toISOString(),
    ttl: epochSeconds(expiresAt) + 7 * 86_400,
    createdAt: now.toISOString(),
  };
  await entities.invitation.create(invitation).go({ response: 'none' });
  const link = linkTo('/app/join', { token: `${invitation.invitationId}.${secret}` }, { slug: ctx.org.slug, baseDomain: config().baseDomain, requestOrigin });
  try {
    await sendMail(
      {
        orgId: ctx.org.orgId,
        to: email,
        subject: `${ctx.actor.name} invited you to ${ctx.org.name}`,
        text: `${ctx.actor.name} invited you to join ${ctx.org.name}.\n\nChoose your name and password here (the link works once, for ${INVITATION_DAYS} days):\n${link}\n`,
        link,
      },
      now,
    );
  } catch (error) {
    await entities.invitation.delete({ orgId: ctx.org.orgId, invitationId: invitation.invitationId }).go({ response: 'none' });
    throw error;
  }
  return presentInvitation(invitation);
}

/** Invitations not yet accepted and not expired, newest first (one Query of the organization's invitations). */
export async function listInvitations(ctx: DomainContext) {
  requirePermission(ctx, 'users:manage');
  const now = ctx.clock.now().toISOString();
  const { data } = await db().entities.invitation.query.byOrg({ orgId: ctx.org.orgId }).go({ order: 'desc', pages: 'all' });
  return data.filter((item) => !item.acceptedAt && item.expiresAt > now).map(presentInvitation);
}

/** Withdraws an invitation: its link stops working. An accepted one is gone already (404). */
export async function revokeInvitation(ctx: DomainContext, invitationId: string): Promise<void> {
  requirePermission(ctx, 'users:manage');
  await transact((e) => [
    guarded(
      e.invitation
        .delete({ orgId: ctx.org.orgId, invitationId })
        .where((attr, op) => `${op.exists(attr.invitationId)} AND ${op.notExists(attr.acceptedAt)}`)
        .commit(),
      () => notFound('Invitation'),
    ),
  ]);
}

const linkNotValid = () => invalidField('token', 'This invitation link is not valid any more: it was used, withdrawn or has expired. Ask for a new one.');

/**
 * Accepts an invitation from its link: the invitee names themself and sets a password, and is
 * signed in. One transaction: the invitation is marked used (only if it was not), the e-mail
 * reserved, the user and a session written, and the groups checked to exist still.
 */
export async function acceptInvitation(ctx: AnonymousContext, orgSlug: string | null, input: { token: string; name: string; password: string }) {
  if (!orgSlug) throw invalidField('X-Organization', 'Name the organization by subdomain or X-Organization header');
  const parts = splitLinkToken(input.token, 'inv');
  if (!parts) throw linkNotValid();
  const entities = db().entities;
  const slug = (await entities.organizationSlug.get({ slug: orgSlug }).go()).data;
  if (!slug) throw notFound('Organization');
  const [invitation, organization] = await Promise.all([
    entities.invitation.get({ orgId: slug.orgId, invitationId: parts.id }).go().then((result) => result.data),
    entities.organization.get({ orgId: slug.orgId }).go().then((result) => result.data),
  ]);
  const now = ctx.clock.now();
  const at = now.toISOString();
  if (!invitation || !organization || invitation.acceptedAt || invitation.expiresAt <= at || !safeEqual(sha256Hex(parts.secret), invitation.secretHash)) throw linkNotValid();
  const user: UserItem = {
    orgId: slug.orgId,
    userId: newId('usr'),
    name: input.name,
    email: invitation.email,
    role: invitation.role,
    isActive: true,
    isAgent: false,
    passwordHash: await hashPassword(input.password),
    permissionGroupIds: invitation.permissionGroupIds,
    createdAt: at,
    updatedAt: at,
  };
  const session = await issueSession(slug.orgId, user.userId, now);
  await transact((e) => [
    guarded(
      e.invitation
        .patch({ orgId: slug.orgId, invitationId: invitation.invitationId })
        .set({ acceptedAt: at, acceptedUserId: user.userId })
        .where((attr, op) => op.notExists(attr.acceptedAt))
        .commit(),
      linkNotValid,
    ),
    guarded(e.userEmail.create({ orgId: slug.orgId, email: user.email, userId: user.userId }).commit(), () =>
      conflict('A user with this e-mail already exists; sign in instead', { field: 'email' }),
    ),
    e.user.create(user).commit(),
    e.credential.create(session.record).commit(),
    ...groupChecks(e, slug.orgId, user.permissionGroupIds ?? []),
  ]);
  return {
    organization: { id: organization.orgId, slug: organization.slug, name: organization.name, plan: organization.plan },
    user: presentUser(user),
    token: session.token,
    expiresIn: session.expiresIn,
  };
}
