import { newId } from '../core/ids.js';
import { invalidField, notFound } from '../core/errors.js';
import type { CursorPage } from '../core/pages.js';
import type { DomainContext } from '../db/context.js';
import type { WebhookAttemptItem, WebhookDeliveryItem } from '../db/entities/index.js';
import { db } from '../db/service.js';
import { deliveryRecord, envelope, messageOf } from './delivery-records.js';
import { enterWebhooks, loadEndpoint } from './endpoints.js';
import { enqueueDeliveries } from './queue.js';

/** The largest page of `GET …/deliveries`. */
export const MAX_DELIVERIES_PAGE = 200;

/** A delivery attempt as the API lists it (docs/webhooks.md "Delivery"), with its duration. */
export function presentAttempt(attempt: WebhookAttemptItem) {
  return {
    id: attempt.deliveryId,
    endpointId: attempt.endpointId,
    eventType: attempt.eventType,
    statusCode: attempt.statusCode,
    success: attempt.success,
    attempt: attempt.attempt,
    error: attempt.error ?? null,
    durationMs: attempt.durationMs,
    createdAt: attempt.createdAt,
  };
}

/** Where a page of attempts starts: after this attempt's key, in the endpoint's newest-first order. */
interface AttemptKey {
  createdAt: string;
  deliveryId: string;
  attempt: number;
}

const cursorOf = ({ createdAt, deliveryId, attempt }: AttemptKey): string => Buffer.from(JSON.stringify([createdAt, deliveryId, attempt])).toString('base64url');

function keyOfCursor(cursor: string): AttemptKey {
  try {
    const [createdAt, deliveryId, attempt] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof deliveryId === 'string' && Number.isInteger(attempt)) return { createdAt, deliveryId, attempt: attempt as number };
  } catch {
    // reported below
  }
  throw invalidField('before', 'Not a cursor this list gave out');
}

/**
 * The endpoint's delivery attempts, newest first, `limit` at a time (one Query beside the
 * endpoint's read): a page reads one attempt more than it answers, so it knows whether another
 * page follows, and `next` names where that page starts. A cursor is only a position inside
 * this endpoint's own attempts: whatever it says, the Query stays in the caller's partition.
 */
export async function listDeliveries(ctx: DomainContext, endpointId: string, limit: number, before?: string): Promise<CursorPage<ReturnType<typeof presentAttempt>>> {
  enterWebhooks(ctx, 'webhooks:view');
  const attempts = db().entities.webhookAttempt.query.byEndpoint({ orgId: ctx.org.orgId, endpointId });
  const [, page] = await Promise.all([
    loadEndpoint(ctx, endpointId),
    (before ? attempts.lt(keyOfCursor(before)) : attempts).go({ order: 'desc', limit: limit + 1 }),
  ]);
  const items = page.data.slice(0, limit);
  return { items: items.map(presentAttempt), next: page.data.length > limit ? cursorOf(items.at(-1)!) : null };
}

/** Sends a person's delivery (a ping or a redelivery): one attempt, to an active or inactive endpoint. */
async function sendManual(delivery: WebhookDeliveryItem): Promise<void> {
  await db().entities.webhookDelivery.create(delivery).go({ response: 'none' });
  await enqueueDeliveries([messageOf(delivery)]);
}

/** Queues a `ping` (data: the endpoint id) to the endpoint; its attempt shows in the deliveries. */
export async function pingEndpoint(ctx: DomainContext, endpointId: string): Promise<void> {
  enterWebhooks(ctx, 'webhooks:manage');
  const endpoint = await loadEndpoint(ctx, endpointId);
  const now = ctx.clock.now();
  const eventId = newId('evt');
  await sendManual(
    deliveryRecord(
      {
        orgId: ctx.org.orgId,
        endpointId: endpoint.endpointId,
        deliveryId: newId('dlv'),
        eventId,
        eventType: 'ping',
        body: envelope(eventId, 'ping', now.toISOString(), ctx.org.orgId, { endpointId: endpoint.endpointId }),
        maxAttempts: 1,
        manual: true,
      },
      now,
    ),
  );
}

/**
 * Sends a delivery's envelope again as a new delivery (a new delivery id, the same event id
 * and body), one attempt. A delivery is redelivered through the endpoint it was made to.
 */
export async function redeliver(ctx: DomainContext, endpointId: string, deliveryId: string): Promise<void> {
  enterWebhooks(ctx, 'webhooks:manage');
  const [, original] = await Promise.all([
    loadEndpoint(ctx, endpointId),
    db().entities.webhookDelivery.get({ orgId: ctx.org.orgId, endpointId, deliveryId }).go(),
  ]);
  if (!original.data) throw notFound('Delivery');
  const { eventId, eventType, body } = original.data;
  await sendManual(
    deliveryRecord(
      { orgId: ctx.org.orgId, endpointId, deliveryId: newId('dlv'), eventId, eventType, body, maxAttempts: 1, manual: true },
      ctx.clock.now(),
    ),
  );
}
