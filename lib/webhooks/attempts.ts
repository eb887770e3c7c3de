import { addSeconds, epochSeconds, type Clock } from '../core/clock.js';
import { config, MAX_WEBHOOK_RETRY_DELAY_SECONDS, webhookSecretKeys } from '../core/config.js';
import { unsealWithAny } from '../core/sealed.js';
import type { WebhookDeliveryItem, WebhookEndpointItem } from '../db/entities/index.js';
import { db } from '../db/service.js';
import { isConditionFailure, transact, type TransactionEntities } from '../db/transact.js';
import { notificationPut } from '../notifications/index.js';
import { DELIVERY_RETENTION_SECONDS } from './delivery-records.js';
import type { DeliveryMessage } from './queue.js';
import { signDelivery } from './signing.js';
import { postWebhook, type PostResult } from './transport.js';
import { log, publishMetrics } from '../core/telemetry.js';

/** An endpoint whose every attempt failed for this long is deactivated. */
export const FAILING_DEACTIVATION_SECONDS = 3 * 24 * 3600;
/**
 * How long one attempt holds its delivery: longer than the 10 s request timeout plus the
 * writes around it, shorter than the queue's visibility timeout (60 s), so a message that a
 * crashed worker leaves behind finds the hold lapsed when SQS shows it again.
 */
const IN_FLIGHT_SECONDS = 30;

/** What the queue does with a message after an attempt. */
export type AttemptOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'dead'; reason: string };

export interface AttemptOptions {
  clock: Clock;
  /** 0 ≤ random() < 1, for the ±10 % jitter. */
  random?: () => number;
  /** The delivery kinds besides events to webhook endpoints, by `kind` (wired in by the delivery function). */
  kinds?: DeliveryKinds;
}

/** Where a delivery goes: the URL and the sealed signing secret. */
export interface DeliveryTarget {
  url: string;
  sealedSecret: string;
}

/**
 * A kind of delivery other than an event to a webhook endpoint (the external time-booking
 * sync): how its target is found and what an attempt's outcome means to its own domain. Such
 * deliveries share everything else (queue, signing, SSRF guard, retries, attempt records), and
 * this module depends on no domain: the delivery function's entry wires the kinds in.
 */
export interface DeliveryKind {
  /** The delivery's target; undefined when it no longer exists (the delivery is then cancelled). */
  target(orgId: string, endpointId: string): Promise<DeliveryTarget | undefined>;
  /** A 2xx response's body is read up to this many bytes (the outcome may depend on it). */
  responseBodyBytes: number;
  /** Records an attempt's outcome in the kind's domain (after the attempt itself is recorded). */
  recordAttempt(delivery: WebhookDeliveryItem, result: PostResult, now: Date): Promise<void>;
}
export type DeliveryKinds = Record<string, DeliveryKind>;

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
  const key = { orgId: message.orgId, endpointId: message.endpointId, deliveryId: message.deliveryId };
  const kind = message.kind === undefined ? undefined : options.kinds?.[message.kind];
  if (message.kind !== undefined && !kind) throw new Error(`No handler for deliveries of kind ${message.kind}`);
  // The target is read beside the take (one round trip less per attempt; wasted only on a duplicate message).
  const [taken, target] = await Promise.all([
    take(key, messageId, clock.now()),
    kind ? kind.target(key.orgId, key.endpointId) : db().entities.webhookEndpoint.get({ orgId: key.orgId, endpointId: key.endpointId }).go().then((result) => result.data ?? undefined),
  ]);
  if (!taken) return { kind: 'done' };
  const endpoint = kind ? undefined : (target as WebhookEndpointItem | undefined);
  if (!target || (endpoint && !endpoint.isActive && !taken.manual)) {
    await db().entities.webhookDelivery.patch(key).set({ state: 'cancelled' }).remove(['inFlightUntil']).go({ response: 'none' });
    await kind?.recordAttempt(taken, { statusCode: 0, success: false, error: 'the receiver was removed', durationMs: 0 }, clock.now());
    return { kind: 'done' };
  }

  const attempt = taken.attemptsMade + 1;
  const startedAt = clock.now();
  const secret = unsealWithAny(target.sealedSecret, webhookSecretKeys());
  const headers = {
    ...signDelivery(secret, taken.deliveryId, startedAt, taken.body),
    'x-service-event': taken.eventType,
    'x-service-delivery': taken.deliveryId,
  };
  const result = await postWebhook(target.url, headers, taken.body, {
    allowLoopback: config().webhookAllowLoopback,
    now: () => clock.now(),
    ...(kind ? { responseBodyBytes: kind.responseBodyBytes } : {}),
  });

  const now = clock.now();
  const last = attempt >= taken.maxAttempts;
  // Endpoint health (failing runs, deactivation) is kept for webhook endpoints only.
  const deactivation = endpoint ? deactivationReason(endpoint, result, now) : undefined;
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
    ...(endpoint ? endpointHealth(e, endpoint, result, now, deactivation, admins) : []),
  ]);
  await kind?.recordAttempt(taken, result, now);
  // Ids, the outcome and the timing; never the receiver's URL (it may carry a token) or a body.
  log.info('delivery attempt', {
    deliveryId: key.deliveryId,
    endpointId: key.endpointId,
    orgId: key.orgId,
    kind: message.kind ?? 'webhook',
    eventType: taken.eventType,
    attempt,
    statusCode: result.statusCode,
    success: result.success,
    error: result.error,
    ms: result.durationMs,
    state,
  });
  publishMetrics({ WebhookAttempts: 1, WebhookFailures: result.success ? 0 : 1 });

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
