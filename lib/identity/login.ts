import { AppError, invalidField, unauthenticated } from '../core/errors.js';
import type { AnonymousContext, DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { transact } from '../db/transact.js';
import { consumeRateLimits, rateWindow, readWindows, uncountCall } from '../db/rate-limit.js';
import { presentUser } from '../users/index.js';
import { hashPassword, verifyPassword } from '../core/passwords.js';
import { issueSession } from './session-issuer.js';

const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'Invalid e-mail or password', undefined, { 'WWW-Authenticate': 'Bearer' });

/** Failed sign-ins allowed per account (organization and e-mail) in one window. */
export const LOGIN_FAILURES_PER_ACCOUNT = 10;
/** Failed sign-ins allowed per source IP address, across organizations, in one window. */
export const LOGIN_FAILURES_PER_IP = 100;
/** The throttling window of sign-ins, 15 minutes. */
export const LOGIN_WINDOW_SECONDS = 15 * 60;

/** The user id read when an e-mail is unknown, so a wrong e-mail costs the same reads as a wrong password. */
const NO_USER = 'usr_00000000000000000000000000';

/**
 * Password login into the organization the request addresses. Wrong e-mail and wrong password
 * look the same: the same 401, the same reads (a missing user is still read), the same scrypt
 * work. Failed sign-ins are throttled per account and per source IP: every attempt is counted
 * in both windows before the password is checked (so parallel guesses cannot pass the limit),
 * and a successful one gives its count back in the transaction that stores the session, so
 * only failures remain counted. A full window answers 429 with Retry-After, even for the
 * right password, until it ends.
 */
export async function login(ctx: AnonymousContext, orgSlug: string | null, input: { email: string; password: string }, sourceIp: string) {
  if (!orgSlug) throw invalidField('X-Organization', 'Name the organization by subdomain or X-Organization header');
  const entities = db().entities;
  const now = ctx.clock.now();
  const email = input.email.toLowerCase();
  const slug = (await entities.organizationSlug.get({ slug: orgSlug }).go()).data;
  const windows = [
    rateWindow('ip', `login-address#${sourceIp}`, LOGIN_FAILURES_PER_IP, LOGIN_WINDOW_SECONDS, now),
    ...(slug ? [rateWindow(slug.orgId, `login-account#${email}`, LOGIN_FAILURES_PER_ACCOUNT, LOGIN_WINDOW_SECONDS, now)] : []),
  ];
  const [, emailRecord] = await Promise.all([
    consumeRateLimits(windows, now, 'Too many failed sign-ins; retry later'),
    slug ? entities.userEmail.get({ orgId: slug.orgId, email }).go().then((result) => result.data) : null,
  ]);
  // The windows' counts (this attempt included) are read beside the user, for the RateLimit headers.
  const [user, windowCounts] = await Promise.all([
    entities.user.get({ orgId: slug?.orgId ?? '-', userId: emailRecord?.userId ?? NO_USER }).go().then((result) => result.data),
    readWindows(windows, now),
  ]);
  const passwordOk = await verifyPassword(input.password, user?.passwordHash);
  if (!emailRecord || !user || !passwordOk || !user.isActive || user.isAgent) {
    windowCounts.report();
    throw invalidCredentials();
  }

  const session = await issueSession(user.orgId, user.userId, now);
  await transact((e) => [e.credential.create(session.record).commit(), ...windows.map((window) => uncountCall(e, window))]);
  // A successful sign-in gave its count back.
  windowCounts.report(1);
  return { token: session.token, expiresIn: session.expiresIn, user: presentUser(user) };
}

/** Ends the calling session alone (the authorization pages' sign-in): its record is deleted; OAuth grants stay. */
export async function endSession(ctx: DomainContext): Promise<void> {
  if (ctx.actor.credential.kind !== 'SESSION') return;
  await db().entities.credential.delete({ lookupKey: ctx.actor.credential.lookupKey }).go({ response: 'none' });
}

/**
 * Ends the session of the calling credential and, per the API reference; docs/oauth.md, revokes the user's
 * OAuth grants: every grant made before now stops at once (`oauthValidAfter`, which the
 * authenticator and the token endpoint compare with each grant), in one transaction.
 */
export async function logout(ctx: DomainContext): Promise<void> {
  if (ctx.actor.credential.kind !== 'SESSION') {
    throw new AppError('VALIDATION_ERROR', 'Only a session can log out; revoke access tokens instead', {
      issues: [{ path: 'Authorization', message: 'Not a session token' }],
    });
  }
  const at = ctx.clock.now().toISOString();
  await transact((e) => [
    e.credential.delete({ lookupKey: ctx.actor.credential.lookupKey }).commit(),
    e.user.patch({ orgId: ctx.org.orgId, userId: ctx.actor.userId }).set({ oauthValidAfter: at }).commit(),
  ]);
}

/**
 * Changes the caller's password, ends every session issued before now, revokes the user's
 * OAuth grants (the API reference) and returns a fresh session, so the client that changed the
 * password stays signed in.
 */
export async function changePassword(ctx: DomainContext, input: { currentPassword: string; newPassword: string }) {
  const entities = db().entities;
  const user = (await entities.user.get({ orgId: ctx.org.orgId, userId: ctx.actor.userId }).go()).data;
  if (!user?.passwordHash) throw unauthenticated();
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
      .set({ passwordHash, sessionsValidAfter: at, oauthValidAfter: at, updatedAt: at })
      .where((attr, op) => op.eq(attr.passwordHash, user.passwordHash!))
      .commit(),
    e.credential.create(session.record).commit(),
  ]);
  return { token: session.token, expiresIn: session.expiresIn };
}
