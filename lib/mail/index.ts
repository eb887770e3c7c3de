/**
 * Mail the service sends people: invitations and password resets (docs/console.md, "People join
 * and recover"). One function sends; where it goes is the installation's setting:
 * - `MAIL_FROM` set (the stack's `mailFrom`, docs/operations.md): Amazon SES, through the SESv2
 *   API, from that address (its identity verified in SES);
 * - unset (`npm start`, or a stack without a sender): the organization's outbox in the table,
 *   which the platform operator reads (`GET /api/v1/platform/organizations/{slug}/outbox`, the
 *   console's Outbox page). `npm start` also prints each message's link (MAIL_PRINT=true), so
 *   the two commands stay the only set-up.
 * The SES client is loaded on first send, so no function pays for it at start.
 */
import { newId } from '../core/ids.js';
import { epochSeconds } from '../core/clock.js';
import { log } from '../core/telemetry.js';
import { db } from '../db/service.js';
import { pageOf } from '../core/pages.js';
import type { OutboxMailItem } from '../db/entities/index.js';

export { outboxMailResult } from './shapes.js';

export interface Mail {
  orgId: string;
  to: string;
  subject: string;
  /** Plain text; the link is on a line of its own in it. */
  text: string;
  /** The one link the message is about (kept apart for the outbox). */
  link: string;
}

/** How long the outbox keeps a message. */
const OUTBOX_DAYS = 7;

type SesModule = typeof import('@aws-sdk/client-sesv2');
let ses: { module: SesModule; client: InstanceType<SesModule['SESv2Client']> } | undefined;

async function sendThroughSes(from: string, mail: Mail): Promise<void> {
  if (!ses) {
    const module = await import('@aws-sdk/client-sesv2');
    ses = { module, client: new module.SESv2Client({}) };
  }
  await ses.client.send(
    new ses.module.SendEmailCommand({
      FromEmailAddress: from,
      Destination: { ToAddresses: [mail.to] },
      ...(process.env.MAIL_CONFIGURATION_SET ? { ConfigurationSetName: process.env.MAIL_CONFIGURATION_SET } : {}),
      Content: { Simple: { Subject: { Data: mail.subject, Charset: 'UTF-8' }, Body: { Text: { Data: mail.text, Charset: 'UTF-8' } } } },
    }),
  );
}

/** Sends one message (SES when a sender is configured, else the outbox). Throws when it could not be sent. */
export async function sendMail(mail: Mail, now: Date): Promise<void> {
  const from = process.env.MAIL_FROM;
  if (from) {
    await sendThroughSes(from, mail);
    log.info('mail sent', { orgId: mail.orgId, transport: 'ses' });
    return;
  }
  await db()
    .entities.outboxMail.create({
      orgId: mail.orgId,
      mailId: newId('mail'),
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      link: mail.link,
      ttl: epochSeconds(now) + OUTBOX_DAYS * 86_400,
      createdAt: now.toISOString(),
    })
    .go({ response: 'none' });
  // Only `npm start` prints the link: it is a secret, and logs never carry one.
  if (process.env.MAIL_PRINT === 'true') console.log(`\n✉  Mail to ${mail.to}: ${mail.subject}\n   ${mail.link}\n`);
}

export function presentOutboxMail(item: OutboxMailItem) {
  return { id: item.mailId, to: item.to, subject: item.subject, text: item.text, link: item.link, sentAt: item.createdAt };
}

/** The organization's outbox, newest first (one Query; the partition holds 7 days of messages). */
export async function listOutbox(orgId: string, query: { page: number; limit: number }) {
  const { data } = await db().entities.outboxMail.query.byOrg({ orgId }).go({ order: 'desc', pages: 'all' });
  return pageOf(data.map(presentOutboxMail), query.page, query.limit);
}

/**
 * The origin a link in a message points at. With a base domain: the organization's own origin,
 * never the request's Host (a forged Host must not send a person's reset link elsewhere).
 * Without one, the organization is named in `?org=` on the origin the request came to: locally
 * (base domain `localhost`) only a loopback one, and deployed without a custom domain the API's
 * own endpoint (API Gateway routes a request only by that host, so it cannot be another).
 */
export function linkTo(path: string, params: Record<string, string>, site: { slug: string; baseDomain: string; requestOrigin: string }): string {
  const local = site.baseDomain === 'localhost';
  const shared = local || site.baseDomain === '';
  const loopback = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(site.requestOrigin);
  const origin = !shared ? `https://${site.slug}.${site.baseDomain}` : local && !loopback ? 'http://localhost' : site.requestOrigin;
  const query = new URLSearchParams({ ...(shared ? { org: site.slug } : {}), ...params });
  return `${origin}${path}?${query}`;
}
