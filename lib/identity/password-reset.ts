import { setTimeout as sleep } from 'node:timers/promises';
import { invalidField } from '../core/errors.js';
import { addSeconds, epochSeconds } from '../core/clock.js';
import { newId, randomSecret, safeEqual, sha256Hex } from '../core/ids.js';
import { config } from '../core/config.js';
import type { AnonymousContext } from '../db/context.js';
import { db } from '../db/service.js';
import { guarded, transact } from '../db/transact.js';
import { consumeRateLimits, rateWindow } from '../db/rate-limit.js';
import { hashPassword } from '../core/passwords.js';
import { linkTo, sendMail } from '../mail/index.js';
import { splitLinkToken } from './link-tokens.js';
import { log } from '../core/telemetry.js';

/** How long a reset link works. */
export const PASSWORD_RESET_MINUTES = 60;
/** Reset requests per address (organization and e-mail) per hour, and per source IP per 15 minutes. */
export const RESETS_PER_ACCOUNT = 5;
export const RESETS_PER_IP = 50;
/**
 * Every request for a reset answers no sooner than this after it arrived, whether the address is
 * known (a write and a message) or not (neither), so the time taken does not tell them apart.
 */
export const RESET_REQUEST_FLOOR_MS = 750;

const NO_USER = 'usr_00000000000000000000000000';

/**
 * "Forgot password": when the address belongs to an active person of the organization, a link
 * to set a new password is mailed to it. The answer is the same for any address (known,
 * unknown, an agent's, a deactivated person's): the same status, no body, and no sooner than
 * RESET_REQUEST_FLOOR_MS. Requests are counted per address and per source IP first, known or not.
 */
export async function requestPasswordReset(ctx: AnonymousContext, orgSlug: string | null, email: string, site: { requestOrigin: string; sourceIp: string }): Promise<void> {
  if (!orgSlug) throw invalidField('X-Organization', 'Name the organization by subdomain or X-Organization header');
  const started = Date.now();
  try {
    const entities = db().entities;
    const now = ctx.clock.now();
    const address = email.toLowerCase();
    const slug = (await entities.organizationSlug.get({ slug: orgSlug }).go()).data;
    const windows = [
      rateWindow('ip', `reset-address#${site.sourceIp}`, RESETS_PER_IP, 15 * 60, now),
      ...(slug ? [rateWindow(slug.orgId, `reset-account#${address}`, RESETS_PER_ACCOUNT, 3600, now)] : []),
    ];
    const [, emailRecord] = await Promise.all([
      consumeRateLimits(windows, now, 'Too many password reset requests; retry later'),
      slug ? entities.userEmail.get({ orgId: slug.orgId, email: address }).go().then((result) => result.data) : null,
    ]);
    const [user, organization] = await Promise.all([
      entities.user.get({ orgId: slug?.orgId ?? '-', userId: emailRecord?.userId ?? NO_USER }).go().then((result) => result.data),
      slug ? entities.organization.get({ orgId: slug.orgId }).go().then((result) => result.data) : null,
    ]);
    if (!slug || !organization || !user?.isActive || user.isAgent || user.isDeleted) return;
    const expiresAt = addSeconds(now, PASSWORD_RESET_MINUTES * 60);
    const secret = randomSecret();
    const resetId = newId('rst');
    await entities.passwordReset
      .create({ orgId: slug.orgId, resetId, userId: user.userId, secretHash: sha256Hex(secret), expiresAt: expiresAt.toISOString(), ttl: epochSeconds(expiresAt) + 86_400, createdAt: now.toISOString() })
      .go({ response: 'none' });
    const link = linkTo('/app/reset', { token: `${resetId}.${secret}` }, { slug: organization.slug, baseDomain: config().baseDomain, requestOrigin: site.requestOrigin });
    // A failed send is logged, not answered: the answer must not differ for a known address.
    await sendMail(
      {
        orgId: slug.orgId,
        to: user.email,
        subject: `Reset your password for ${organization.name}`,
        text: `Someone asked to reset the password of ${user.email} at ${organization.name}. If it was you, set a new one here (the link works once, for ${PASSWORD_RESET_MINUTES} minutes):\n${link}\n\nIf it was not you, ignore this message: your password stays as it is.\n`,
        link,
      },
      now,
    ).catch((error: unknown) => log.error('password reset mail not sent', { orgId: slug.orgId, resetId }, error));
  } finally {
    const left = RESET_REQUEST_FLOOR_MS - (Date.now() - started);
    if (left > 0) await sleep(left);
  }
}

const linkNotValid = () => invalidField('token', 'This reset link is not valid any more: it was used, has expired, or the password changed since. Ask for a new one.');

/**
 * Sets a new password from a reset link. One transaction: the reset is marked used (only if it
 * was not), and the password replaced (only if it did not change since the reset was read),
 * with every session and every OAuth grant of the person ended (`sessionsValidAfter`,
 * `oauthValidAfter`). A link made before the password last changed is void.
 */
export async function confirmPasswordReset(ctx: AnonymousContext, orgSlug: string | null, input: { token: string; password: string }): Promise<void> {
  if (!orgSlug) throw invalidField('X-Organization', 'Name the organization by subdomain or X-Organization header');
  const parts = splitLinkToken(input.token, 'rst');
  if (!parts) throw linkNotValid();
  const { id: resetId, secret } = parts;
  const entities = db().entities;
  const slug = (await entities.organizationSlug.get({ slug: orgSlug }).go()).data;
  if (!slug) throw linkNotValid();
  const reset = (await entities.passwordReset.get({ orgId: slug.orgId, resetId }).go()).data;
  const at = ctx.clock.now().toISOString();
  if (!reset || reset.usedAt || reset.expiresAt <= at || !safeEqual(sha256Hex(secret), reset.secretHash)) throw linkNotValid();
  const user = (await entities.user.get({ orgId: slug.orgId, userId: reset.userId }).go()).data;
  if (!user?.isActive || user.isAgent || (user.sessionsValidAfter && reset.createdAt < user.sessionsValidAfter)) throw linkNotValid();
  const passwordHash = await hashPassword(input.password);
  await transact((e) => [
    guarded(
      e.passwordReset
        .patch({ orgId: slug.orgId, resetId })
        .set({ usedAt: at })
        .where((attr, op) => op.notExists(attr.usedAt))
        .commit(),
      linkNotValid,
    ),
    guarded(
      e.user
        .patch({ orgId: slug.orgId, userId: user.userId })
        .set({ passwordHash, sessionsValidAfter: at, oauthValidAfter: at, updatedAt: at })
        .where((attr, op) => (user.passwordHash ? op.eq(attr.passwordHash, user.passwordHash) : op.notExists(attr.passwordHash)))
        .commit(),
      linkNotValid,
    ),
  ]);
}
