import { invalidField, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Clock } from '../core/clock.js';
import { config, webhookSecretKey } from '../core/config.js';
import { seal } from '../core/sealed.js';
import { deliverableUrlRefusal } from '../core/outbound.js';
import type { DomainContext } from '../db/context.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import { TIME_ENTRY_STATES, type TimeEntryItem, type TimeSyncEndpointItem, type WebhookDeliveryItem } from '../db/entities/index.js';
import { type EventRecord, jobKind, jobRecord, type JobRun, type JobPayload } from '../events/index.js';
import { requireAdmin } from '../organizations/index.js';
import { type DeliveryKind, automaticDeliveryId, deliveryRecord, envelope, recordOnce, enqueueDeliveries, newWebhookSecret, type PostResult } from '../webhooks/index.js';
import { enterTimeTracking } from './access.js';

/*
 * The external time-booking sync (docs/features.md, Time tracking). An organization may name one
 * HTTPS endpoint. Each approved entry (and each later change or deletion of a pushed entry) is
 * pushed to it as a signed JSON POST through the webhook delivery machinery: the entry's
 * transaction stores an outbox record of type `time_entry.sync` beside the change (this type
 * is never offered to webhook endpoints), the stream consumer hands it to `queueTimeSync`,
 * which creates the delivery (kind `timeSync`) and queues it; the delivery worker signs,
 * POSTs, retries on the webhook schedule, and calls `timeSyncDeliveries.recordAttempt`, which
 * writes the outcome on the entry (`syncStatus`, `syncedAt`, `externalId`, `billed`).
 */

/**
 * The job of one push (never a webhook event; its name is the pushed body's `event`): the entry
 * as it is (or was, for a deletion); the handler adds the ticket's and booking item's references.
 */
export const TIME_SYNC_JOB = jobKind(
  'time_entry.sync',
  (z) => z.object({
    entryId: z.string(),
    deleted: z.boolean(),
    userId: z.string(),
    userName: z.string(),
    isAgent: z.boolean(),
    ticketId: z.nullable(z.string()),
    boardId: z.nullable(z.string()),
    bookingItemId: z.nullable(z.string()),
    date: z.string(),
    durationMinutes: z.number(),
    rawMinutes: z.number(),
    timeFactor: z.nullable(z.number()),
    description: z.string(),
    state: z.enum(TIME_ENTRY_STATES),
    approvedAt: z.nullable(z.string()),
    externalId: z.nullable(z.string()),
  }),
);
type SyncPayload = JobPayload<typeof TIME_SYNC_JOB>;
const TIME_SYNC_EVENT = TIME_SYNC_JOB.name;
/** The delivery kind of pushes (WebhookDelivery `kind`). */
export const TIME_SYNC_KIND = 'timeSync';
/** How much of a receiver's answer is read: `{"externalId": "…", "billed": true}` and then some. */
const RESPONSE_BODY_BYTES = 16 * 1024;

export function presentSyncEndpoint(endpoint: TimeSyncEndpointItem) {
  return { id: endpoint.endpointId, url: endpoint.url, createdAt: endpoint.createdAt, updatedAt: endpoint.updatedAt };
}

export const syncEndpointKey = (orgId: string) => ({ entity: db().entities.timeSyncEndpoint, key: { orgId } });

/** GET …/sync-endpoint (administrators): the endpoint, never its secret; 404 when none is configured. */
export async function getSyncEndpoint(ctx: DomainContext) {
  enterTimeTracking(ctx);
  requireAdmin(ctx, 'manage the time-booking sync');
  const endpoint = (await db().entities.timeSyncEndpoint.get({ orgId: ctx.org.orgId }).go()).data;
  if (!endpoint) throw notFound('Sync endpoint');
  return presentSyncEndpoint(endpoint);
}

/**
 * PUT …/sync-endpoint (administrators): configures the endpoint. A new endpoint gets a fresh
 * secret, returned in this response only; changing the URL keeps the secret unless
 * `rotateSecret` asks for a new one.
 */
export async function putSyncEndpoint(ctx: DomainContext, input: { url: string; rotateSecret?: boolean }) {
  enterTimeTracking(ctx);
  requireAdmin(ctx, 'manage the time-booking sync');
  // Checked once, before the read: a lost race reads and writes again, it does not resolve the name again.
  const refusal = await deliverableUrlRefusal(input.url, { allowLoopback: config().webhookAllowLoopback });
  if (refusal) throw invalidField('url', refusal);
  return retryLostRaces(async () => {
    const existing = (await db().entities.timeSyncEndpoint.get({ orgId: ctx.org.orgId }).go({ consistent: true })).data ?? undefined;
    const now = ctx.clock.now().toISOString();
    const secret = !existing || input.rotateSecret ? newWebhookSecret() : undefined;
    const endpoint: TimeSyncEndpointItem = {
      orgId: ctx.org.orgId,
      endpointId: existing?.endpointId ?? newId('tse'),
      url: input.url,
      sealedSecret: secret ? seal(secret, webhookSecretKey()) : existing!.sealedSecret,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    try {
      await db()
        .entities.timeSyncEndpoint.put(endpoint)
        .where((attr, op) => (existing ? op.eq(attr.updatedAt, existing.updatedAt) : op.notExists(attr.endpointId)))
        .go({ response: 'none' });
    } catch (error) {
      if (isConditionFailure(error)) throw new LostRace('The sync endpoint changed concurrently; retry');
      throw error;
    }
    return { ...presentSyncEndpoint(endpoint), ...(secret ? { secret } : {}) };
  });
}

/** DELETE …/sync-endpoint (administrators): pushes not yet made are dropped (their entries show FAILED). */
export async function deleteSyncEndpoint(ctx: DomainContext): Promise<void> {
  enterTimeTracking(ctx);
  requireAdmin(ctx, 'manage the time-booking sync');
  try {
    await db().entities.timeSyncEndpoint.delete({ orgId: ctx.org.orgId }).where((attr, op) => op.exists(attr.endpointId)).go({ response: 'none' });
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('Sync endpoint');
    throw error;
  }
}

/** What a push carries (TIME_SYNC_JOB). */
function syncPayload(entry: TimeEntryItem, deleted: boolean): SyncPayload {
  return {
    entryId: entry.entryId,
    deleted,
    userId: entry.userId,
    userName: entry.userName,
    isAgent: entry.isAgent,
    ticketId: entry.ticketId ?? null,
    boardId: entry.boardId ?? null,
    bookingItemId: entry.bookingItemId ?? null,
    date: entry.date,
    durationMinutes: entry.durationMinutes,
    rawMinutes: entry.rawMinutes,
    timeFactor: entry.timeFactor ?? null,
    description: entry.description,
    state: entry.state,
    approvedAt: entry.state === 'APPROVED' ? (entry.decidedAt ?? entry.createdAt) : null,
    externalId: entry.externalId ?? null,
  };
}

/**
 * The sync side of an entry write: when the organization has an endpoint and the entry is to
 * be pushed (it is APPROVED after the write, or it had been pushed and is now deleted or no
 * longer approved), the entry is marked PENDING under a new push and the outbox record is
 * returned for the write's transaction. Otherwise the entry is returned as it is.
 */
export function withSyncPush(
  ctx: { clock: Clock },
  endpoint: TimeSyncEndpointItem | undefined,
  before: TimeEntryItem | undefined,
  after: TimeEntryItem | undefined,
): { entry: TimeEntryItem | undefined; events: EventRecord[] } {
  const entry = after ?? before!;
  const pushedBefore = before?.syncStatus !== undefined;
  const approved = after?.state === 'APPROVED';
  if (!endpoint || (!approved && !pushedBefore)) return { entry: after, events: [] };
  const deleted = !approved;
  const event = jobRecord(TIME_SYNC_JOB, entry.orgId, ctx.clock, { subjectId: entry.entryId, data: syncPayload(entry, deleted) });
  if (!after) return { entry: after, events: [event] };
  const marked: TimeEntryItem = { ...after, syncStatus: 'PENDING', syncEventId: event.eventId };
  delete marked.syncError;
  return { entry: marked, events: [event] };
}

/**
 * The stream consumer's hand-over of a push: one delivery to the organization's endpoint,
 * under an id derived from the outbox record (a replayed record creates nothing twice), with
 * the ticket's display id and the booking item's name and external id added to the payload.
 */
export async function queueTimeSync(event: JobRun<SyncPayload>, clock: Clock): Promise<number> {
  const data = event.data;
  const [endpoint, ticket, item] = await Promise.all([
    db().entities.timeSyncEndpoint.get({ orgId: event.orgId }).go().then((result) => result.data ?? undefined),
    data.ticketId ? db().entities.ticket.get({ ticketId: data.ticketId }).go().then((result) => result.data ?? undefined) : undefined,
    data.bookingItemId
      ? db().entities.bookingItem.get({ orgId: event.orgId, bookingItemId: data.bookingItemId }).go().then((result) => result.data ?? undefined)
      : undefined,
  ]);
  if (!endpoint) {
    await recordOutcome(event.orgId, data.entryId, event.eventId, { success: false, error: 'No sync endpoint is configured' }, clock.now());
    return 0;
  }
  const body = envelope(event.eventId, TIME_SYNC_EVENT, event.occurredAt, event.orgId, {
    ...data,
    displayId: ticket && ticket.orgId === event.orgId ? ticket.displayId : null,
    bookingItem: item ? { id: item.bookingItemId, name: item.name, externalId: item.externalId ?? null } : null,
  });
  const delivery = deliveryRecord(
    {
      orgId: event.orgId,
      endpointId: endpoint.endpointId,
      deliveryId: automaticDeliveryId(event.eventId, endpoint.endpointId),
      eventId: event.eventId,
      eventType: TIME_SYNC_EVENT,
      body,
      maxAttempts: config().webhookRetryDelaysSeconds.length + 1,
      manual: false,
      kind: TIME_SYNC_KIND,
    },
    clock.now(),
  );
  const message = await recordOnce(delivery);
  if (!message) return 0;
  await enqueueDeliveries([message]);
  return 1;
}

/** What the receiver said: `{externalId?, billed?}` in a 2xx JSON body (anything else is ignored). */
function receiverAnswer(body: string | undefined): { externalId?: string; billed?: boolean } {
  if (!body) return {};
  try {
    const value = JSON.parse(body) as { externalId?: unknown; billed?: unknown };
    return {
      ...(typeof value.externalId === 'string' && value.externalId.length > 0 ? { externalId: value.externalId.slice(0, 200) } : {}),
      ...(value.billed === true ? { billed: true } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * Writes a push's outcome on its entry, if the entry still exists and this is still its newest
 * push (a later change or resync made a newer one, whose outcome counts instead). `version`
 * moves, so an entry write that read the entry before fails its guard and reads again.
 */
async function recordOutcome(orgId: string, entryId: string, eventId: string, outcome: { success: boolean; error?: string; body?: string }, now: Date): Promise<void> {
  const answer = outcome.success ? receiverAnswer(outcome.body) : {};
  const update = db().entities.timeEntry.patch({ orgId, entryId });
  const changed = outcome.success
    ? update.set({ syncStatus: 'SYNCED', syncedAt: now.toISOString(), ...answer }).remove(['syncError'])
    : update.set({ syncStatus: 'FAILED', syncError: (outcome.error ?? 'failed').slice(0, 200) });
  try {
    await changed
      .add({ version: 1 })
      .where((attr, op) => op.eq(attr.syncEventId, eventId))
      .go({ response: 'none' });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** The delivery kind of pushes, for the delivery worker. */
export const timeSyncDeliveries: DeliveryKind = {
  async target(orgId, endpointId) {
    const endpoint = (await db().entities.timeSyncEndpoint.get({ orgId }).go()).data;
    // A replaced endpoint (deleted and configured again) has a new id and secret: old pushes are dropped.
    return endpoint && endpoint.endpointId === endpointId ? { url: endpoint.url, sealedSecret: endpoint.sealedSecret } : undefined;
  },
  responseBodyBytes: RESPONSE_BODY_BYTES,
  async recordAttempt(delivery: WebhookDeliveryItem, result: PostResult, now: Date) {
    const entryId = (JSON.parse(delivery.body) as { data: { entryId: string } }).data.entryId;
    await recordOutcome(
      delivery.orgId,
      entryId,
      delivery.eventId,
      { success: result.success, ...(result.error ? { error: result.error } : {}), ...(result.responseBody ? { body: result.responseBody } : {}) },
      now,
    );
  },
};
