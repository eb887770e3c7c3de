import { AppError, invalidField, unauthenticated } from '../core/errors.js';
import type { AnonymousContext, DomainContext } from '../core/context.js';
import { db } from '../db/service.js';
import { transact } from '../db/transact.js';
import { presentUser } from '../users/present.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { issueSession } from './session-issuer.js';

const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'Invalid e-mail or password', undefined, { 'WWW-Authenticate': 'Bearer' });

/** Password login into the organization the request addresses. Wrong e-mail and wrong password look the same. */
export async function login(ctx: AnonymousContext, orgSlug: string | null, input: { email: string; password: string }) {
  if (!orgSlug) throw invalidField('X-Organization', 'Name the organization by subdomain or X-Organization header');
  const entities = db().entities;
  const slug = (await entities.organizationSlug.get({ slug: orgSlug }).go()).data;
  const email = input.email.toLowerCase();
  const emailRecord = slug ? (await entities.userEmail.get({ orgId: slug.orgId, email }).go()).data : null;
  const user = emailRecord ? (await entities.user.get({ orgId: emailRecord.orgId, userId: emailRecord.userId }).go()).data : null;
  const passwordOk = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !passwordOk || !user.isActive || user.isAgent) throw invalidCredentials();

  const session = await issueSession(user.orgId, user.userId, ctx.clock.now());
  await entities.credential.create(session.record).go({ response: 'none' });
  return { token: session.token, expiresIn: session.expiresIn, user: presentUser(user) };
}

/**
 * Ends the session of the calling credential. Per spec §5.4 logout also revokes the
 * user's OAuth tokens (the OAuth issue adds that revocation here).
 */
export async function logout(ctx: DomainContext): Promise<void> {
  if (ctx.actor.credential.kind !== 'SESSION') {
    throw new AppError(400, 'VALIDATION_ERROR', 'Only a session can log out; revoke access tokens instead', {
      issues: [{ path: 'Authorization', message: 'Not a session token' }],
    });
  }
  await db().entities.credential.delete({ lookupKey: ctx.actor.credential.lookupKey }).go({ response: 'none' });
}

/**
 * Changes the caller's password, ends every session issued before now and returns a fresh
 * session, so the client that changed the password stays signed in.
 */
export async function changePassword(ctx: DomainContext, input: { currentPassword: string; newPassword: string }) {
  const entities = db().entities;
  const user = (await entities.user.get({ orgId: ctx.org.orgId, userId: ctx.actor.userId }).go()).data;
  if (!user || !user.passwordHash) throw unauthenticated();
  if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
    throw invalidField('currentPassword', 'Current password is wrong');
  }
  const now = ctx.clock.now();
  const at = now.toISOString();
  const session = await issueSession(user.orgId, user.userId, now);
  const passwordHash = await hashPassword(input.newPassword);
  await transact((e) => [
    e.user
      .patch({ orgId: user.orgId, userId: user.userId })
      .set({ passwordHash, sessionsValidAfter: at, updatedAt: at })
      .where((attr, op) => op.eq(attr.passwordHash, user.passwordHash!))
      .commit(),
    e.credential.create(session.record).commit(),
  ]);
  return { token: session.token, expiresIn: session.expiresIn };
}
