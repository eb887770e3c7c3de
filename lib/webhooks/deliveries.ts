import { addSeconds, epochSeconds, type Clock } from '../core/clock.js';
import { config, MAX_WEBHOOK_RETRY_DELAY_SECONDS, webhookSecretKey } from '../core/config.js';
import { notFound } from '../core/errors.js';
import { newId, sha256Hex } from '../core/ids.js';
import { unseal } from '../core/sealed.js';
import type { DomainContext } from '../db/context.js';
import type { WebhookAttemptItem, WebhookDeliveryItem, WebhookEndpointItem } from '../db/entities/index.js';
import { db } from '../db/service.js';
import { isConditionFailure, transact, type TransactionEntities } from '../db/transact.js';
import { notificationPut } from '../notifications/records.js';
import { planIncludes } from '../organizations/plans.js';
import { enterWebhooks, loadEndpoint } from './endpoints.js';
import { enqueueDeliveries, type DeliveryMessage } from './queue.js';
import { signDelivery } from './signing.js';
import { postWebhook, type PostResult } from './transport.js';

/** Delivery records (and the attempts they list) live 30 days (TTL housekeeping). */
const DELIVERY_RETENTION_SECONDS = 30 * 24 * 3600;
/** An endpoint whose every attempt failed for this long is deactivated. */
export const FAILING_DEACTIVATION_SECONDS = 3 * 24 * 3600;
/**
 * How long one attempt holds its delivery: longer than the 10 s request timeout plus the
 * writes around it, shorter than the queue's visibility timeout (60 s), so a message that a
 * crashed worker leaves behind finds the hold lapsed when SQS shows it again.
 */
const IN_FLIGHT_SECONDS = 30;
/** The largest page of `GET …/deliveries`. */
export const MAX_DELIVERIES_PAGE = 200;

/** The body of every delivery (spec §6.1): ids and states only, never content. */
function envelope(eventId: string, event: string, timestamp: string, organizationId: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id: eventId, event, timestamp, organizationId, data });
}

/**
 * The id of an event's automatic delivery to an endpoint, derived from both: creating the
 * delivery record under it is the conditional write that admits one delivery per pair.
 */
export const automaticDeliveryId = (eventId: string, endpointId: string): string =>
  `dlv_${sha256Hex(`${eventId}\n${endpointId}`).slice(0, 26).toUpperCase()}`;

type NewDelivery = Pick<WebhookDeliveryItem, 'orgId' | 'endpointId' | 'deliveryId' | 'eventId' | 'eventType' | 'body' | 'maxAttempts' | 'manual'>;

function deliveryRecord(input: NewDelivery, now: Date): WebhookDeliveryItem {
  return {
    ...input,
    attemptsMade: 0,
    state: 'pending',
    createdAt: now.toISOString(),
    ttl: epochSeconds(addSeconds(now, DELIVERY_RETENTION_SECONDS)),
  };
}

const messageOf = ({ orgId, endpointId, deliveryId }: Pick<WebhookDeliveryItem, 'orgId' | 'endpointId' | 'deliveryId'>): DeliveryMessage => ({
  orgId,
  endpointId,
  deliveryId,
});

export interface FannedOutEvent {
  eventId: string;
  orgId: string;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/**
 * Hands one event to every active endpoint of its organization subscribed to it: one Query for
 * the endpoints (at most 20), one conditional write per endpoint, one SQS message per new
 * delivery. Replays are harmless: a delivery that already exists is not queued again, unless
 * no worker has taken it yet (its message may have been lost); a second message for it is
 * dropped by the worker, which lets only the first message that takes a delivery make its
 * attempts. Returns how many deliveries were queued.
 */
export async function fanOutEvent(event: FannedOutEvent, clock: Clock): Promise<number> {
  const { data: endpoints } = await db().entities.webhookEndpoint.query.byOrg({ orgId: event.orgId }).go({ pages: 'all' });
  const subscribed = endpoints.filter((endpoint) => endpoint.isActive && endpoint.events.includes(event.type));
  if (subscribed.length === 0) return 0;
  // An organization that left the Pro plan keeps its endpoints but receives nothing.
  const org = (await db().entities.organization.get({ orgId: event.orgId }).go()).data;
  if (!org || !planIncludes(org.plan, 'WEBHOOKS')) return 0;

  const now = clock.now();
  const body = envelope(event.eventId, event.type, event.occurredAt, event.orgId, event.data);
  const maxAttempts = config().webhookRetryDelaysSeconds.length + 1;
  const queued = await Promise.all(
    subscribed.map(async (endpoint) => {
      const delivery = deliveryRecord(
        {
          orgId: event.orgId,
          endpointId: endpoint.endpointId,
          deliveryId: automaticDeliveryId(event.eventId, endpoint.endpointId),
          eventId: event.eventId,
          eventType: event.type,
          body,
          maxAttempts,
          manual: false,
        },
        now,
      );
      try {
        await db().entities.webhookDelivery.create(delivery).go({ response: 'none' });
        return messageOf(delivery);
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const existing = (await db().entities.webhookDelivery.get(messageOf(delivery)).go()).data;
        const untaken = existing && existing.state === 'pending' && existing.attemptsMade === 0 && !existing.messageId;
        return untaken ? messageOf(delivery) : undefined;
      }
    }),
  );
  const messages = queued.filter((message): message is DeliveryMessage => message !== undefined);
  await enqueueDeliveries(messages);
  return messages.length;
}

/** A delivery attempt as the API lists it (spec §2.20 "Delivery"), with its duration. */
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

/** The endpoint's delivery attempts, newest first (one Query beside the endpoint's read). */
export async function listDeliveries(ctx: DomainContext, endpointId: string, limit: number) {
  enterWebhooks(ctx, 'webhooks:view');
  const [, page] = await Promise.all([
    loadEndpoint(ctx, endpointId),
    db().entities.webhookAttempt.query.byEndpoint({ orgId: ctx.org.orgId, endpointId }).go({ order: 'desc', limit }),
  ]);
  return page.data.map(presentAttempt);
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

/** What the queue does with a message after an attempt. */
export type AttemptOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'dead'; reason: string };

export interface AttemptOptions {
  clock: Clock;
  /** 0 ≤ random() < 1, for the ±10 % jitter. */
  random?: () => number;
}

/**
 * One attempt of one delivery, for the SQS message `messageId`: take the delivery (conditional:
 * still pending, owned by this message or by none, not in flight), POST it signed, record the
 * attempt, and say what the queue does next: nothing more (a success, a cancelled or finished
 * delivery, a duplicate message), a retry after the schedule's pause, or the dead-letter queue
 * after the last attempt. The endpoint's health is kept in the same write as the attempt: a
 * success clears `failingSince`; a 410, or a failure 3 days into an unbroken run of failures,
 * deactivates the endpoint and notifies the organization's administrators.
 */
export async function attemptDelivery(message: DeliveryMessage, messageId: string, options: AttemptOptions): Promise<AttemptOutcome> {
  const { clock } = options;
  const key = messageOf(message);
  const taken = await take(key, messageId, clock.now());
  if (!taken) return { kind: 'done' };
  const endpoint = (await db().entities.webhookEndpoint.get({ orgId: key.orgId, endpointId: key.endpointId }).go()).data;
  if (!endpoint || (!endpoint.isActive && !taken.manual)) {
    await db().entities.webhookDelivery.patch(key).set({ state: 'cancelled' }).remove(['inFlightUntil']).go({ response: 'none' });
    return { kind: 'done' };
  }

  const attempt = taken.attemptsMade + 1;
  const startedAt = clock.now();
  const secret = unseal(endpoint.sealedSecret, webhookSecretKey());
  const headers = {
    ...signDelivery(secret, taken.deliveryId, startedAt, taken.body),
    'x-service-event': taken.eventType,
    'x-service-delivery': taken.deliveryId,
  };
  const result = await postWebhook(endpoint.url, headers, taken.body, { allowLoopback: config().webhookAllowLoopback, now: () => clock.now() });

  const now = clock.now();
  const last = attempt >= taken.maxAttempts;
  const deactivation = deactivationReason(endpoint, result, now);
  const state = result.success ? 'succeeded' : last || deactivation ? 'failed' : 'pending';
  const admins = deactivation ? await administratorsOf(key.orgId) : [];

  await transact((e) => [
    e.webhookAttempt
      .create({
        ...key,
        attempt,
        eventType: taken.eventType,
        statusCode: result.statusCode,
        success: result.success,
        ...(result.error ? { error: result.error } : {}),
        durationMs: result.durationMs,
        createdAt: startedAt.toISOString(),
        ttl: epochSeconds(addSeconds(startedAt, DELIVERY_RETENTION_SECONDS)),
      })
      .commit(),
    e.webhookDelivery
      .patch(key)
      .set({ attemptsMade: attempt, state })
      .remove(['inFlightUntil'])
      .where((attr, op) => op.eq(attr.messageId, messageId))
      .commit(),
    ...endpointHealth(e, endpoint, result, now, deactivation, admins),
  ]);

  if (result.success || deactivation) return { kind: 'done' };
  if (last) return { kind: 'dead', reason: `attempt ${attempt} of ${taken.maxAttempts} failed: ${result.error ?? `HTTP ${result.statusCode}`}` };
  return { kind: 'retry', delaySeconds: retryDelay(attempt, result, options.random ?? Math.random) };
}

/** Takes the delivery for one attempt; undefined when it is not this message's to make. */
async function take(key: DeliveryMessage, messageId: string, now: Date): Promise<WebhookDeliveryItem | undefined> {
  const at = now.toISOString();
  try {
    const { data } = await db()
      .entities.webhookDelivery.patch(key)
      .set({ messageId, inFlightUntil: addSeconds(now, IN_FLIGHT_SECONDS).toISOString() })
      .where(
        (attr, op) =>
          `${op.eq(attr.state, 'pending')} AND (${op.notExists(attr.messageId)} OR ${op.eq(attr.messageId, messageId)}) AND (${op.notExists(attr.inFlightUntil)} OR ${op.lt(attr.inFlightUntil, at)})`,
      )
      .go({ response: 'all_new' });
    return data as WebhookDeliveryItem;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** The pause before the attempt after `attempt`: the schedule's, ±10 %, or longer if `Retry-After` asks (≤ 12 h). */
export function retryDelay(attempt: number, result: Pick<PostResult, 'retryAfterSeconds'>, random: () => number): number {
  const schedule = config().webhookRetryDelaysSeconds;
  const planned = schedule[Math.min(attempt, schedule.length) - 1] ?? 0;
  const jittered = Math.round(planned * (0.9 + 0.2 * random()));
  return Math.min(MAX_WEBHOOK_RETRY_DELAY_SECONDS, Math.max(jittered, result.retryAfterSeconds ?? 0));
}

function deactivationReason(endpoint: WebhookEndpointItem, result: PostResult, now: Date): string | undefined {
  if (result.success || !endpoint.isActive) return undefined;
  if (result.statusCode === 410) return 'The endpoint answered 410 Gone';
  if (endpoint.failingSince && now.getTime() - Date.parse(endpoint.failingSince) >= FAILING_DEACTIVATION_SECONDS * 1000) {
    return 'Every delivery to the endpoint failed for 3 days';
  }
  return undefined;
}

/** The endpoint writes of an attempt: its failing run started or ended; its deactivation with the administrators' notifications. */
function endpointHealth(
  e: TransactionEntities,
  endpoint: WebhookEndpointItem,
  result: PostResult,
  now: Date,
  deactivation: string | undefined,
  admins: string[],
) {
  const key = { orgId: endpoint.orgId, endpointId: endpoint.endpointId };
  if (result.success) return endpoint.failingSince ? [e.webhookEndpoint.patch(key).remove(['failingSince']).commit()] : [];
  if (!deactivation) return endpoint.failingSince ? [] : [e.webhookEndpoint.patch(key).set({ failingSince: now.toISOString() }).commit()];
  return [
    e.webhookEndpoint
      .patch(key)
      .set({ isActive: false, updatedAt: now.toISOString(), failingSince: endpoint.failingSince ?? now.toISOString() })
      .where((attr, op) => op.eq(attr.isActive, true))
      .commit(),
    ...admins.map((userId) =>
      notificationPut(
        e,
        {
          orgId: endpoint.orgId,
          userId,
          type: 'WEBHOOK_ENDPOINT_DISABLED',
          data: { endpointId: endpoint.endpointId, name: endpoint.name, url: endpoint.url, reason: deactivation },
        },
        now,
      ),
    ),
  ];
}

/** The organization's active administrators (people, not agents). */
async function administratorsOf(orgId: string): Promise<string[]> {
  const { data } = await db()
    .entities.user.query.byOrg({ orgId })
    .where((attr, op) => `${op.eq(attr.role, 'ADMIN')} AND ${op.eq(attr.isActive, true)}`)
    .go({ pages: 'all' });
  return data.filter((user) => !user.isAgent && !user.isDeleted).map((user) => user.userId);
}
