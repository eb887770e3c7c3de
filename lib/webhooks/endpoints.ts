import { conflict, invalidField, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { config, webhookSecretKey } from '../core/config.js';
import { seal } from '../core/sealed.js';
import type { DomainContext } from '../db/context.js';
import { LostRace } from '../db/races.js';
import { db } from '../db/service.js';
import { guarded, isConditionFailure, transact } from '../db/transact.js';
import { MAX_WEBHOOK_ENDPOINTS, type WebhookEndpointItem } from '../db/entities/index.js';
import { counterDown, counterUp, requirePermission, requireFeature } from '../organizations/index.js';
import { deliverableUrlRefusal } from '../core/outbound.js';
import { newWebhookSecret } from './signing.js';
import type { EventType } from './events.js';
import type { WebhookEndpoint } from './shapes.js';

/** An endpoint as the API shows it (docs/webhooks.md): never its secret. */
export function presentEndpoint(endpoint: WebhookEndpointItem): WebhookEndpoint {
  return {
    id: endpoint.endpointId,
    name: endpoint.name,
    url: endpoint.url,
    // Stored only after validation against the catalogue (endpointInput), so each is an EventType.
    events: [...endpoint.events] as EventType[],
    isActive: endpoint.isActive,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

export function enterWebhooks(ctx: DomainContext, permission: 'webhooks:view' | 'webhooks:manage'): void {
  requireFeature(ctx, 'WEBHOOKS');
  requirePermission(ctx, permission);
}

/** 400 naming `url` unless the URL may receive webhooks (HTTPS, its host public by literal and by what it resolves to now). */
async function assertDeliverable(url: string): Promise<void> {
  const refusal = await deliverableUrlRefusal(url, { allowLoopback: config().webhookAllowLoopback });
  if (refusal) throw invalidField('url', refusal);
}

async function loadEndpoints(orgId: string): Promise<WebhookEndpointItem[]> {
  const { data } = await db().entities.webhookEndpoint.query.byOrg({ orgId }).go({ pages: 'all' });
  return data.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.endpointId.localeCompare(b.endpointId));
}

export async function loadEndpoint(ctx: DomainContext, endpointId: string): Promise<WebhookEndpointItem> {
  const endpoint = (await db().entities.webhookEndpoint.get({ orgId: ctx.org.orgId, endpointId }).go()).data;
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}

export async function listEndpoints(ctx: DomainContext) {
  enterWebhooks(ctx, 'webhooks:view');
  return (await loadEndpoints(ctx.org.orgId)).map(presentEndpoint);
}

export async function getEndpoint(ctx: DomainContext, endpointId: string) {
  enterWebhooks(ctx, 'webhooks:view');
  return presentEndpoint(await loadEndpoint(ctx, endpointId));
}

export interface EndpointInput {
  name: string;
  url: string;
  events: EventType[];
}

const limitReached = () =>
  conflict(`An organization has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`, { limit: MAX_WEBHOOK_ENDPOINTS });

/**
 * Creates an endpoint with a fresh secret, returned in this response only; stored sealed. The
 * organization's endpoint counter rises in the same transaction, guarded by the limit of 20.
 */
export async function createEndpoint(ctx: DomainContext, input: EndpointInput) {
  enterWebhooks(ctx, 'webhooks:manage');
  await assertDeliverable(input.url);
  if ((ctx.org.webhookEndpointCount ?? 0) >= MAX_WEBHOOK_ENDPOINTS) throw limitReached();
  const secret = newWebhookSecret();
  const at = ctx.clock.now().toISOString();
  const endpoint: WebhookEndpointItem = {
    orgId: ctx.org.orgId,
    endpointId: newId('wh'),
    name: input.name,
    url: input.url,
    events: [...new Set(input.events)],
    isActive: true,
    sealedSecret: seal(secret, webhookSecretKey()),
    createdAt: at,
    updatedAt: at,
  };
  await transact((e) => [
    guarded(e.webhookEndpoint.create(endpoint).commit(), () => new LostRace('The endpoint could not be created; retry')),
    counterUp(e, ctx.org.orgId, 'webhookEndpointCount', MAX_WEBHOOK_ENDPOINTS, limitReached),
  ]);
  return { ...presentEndpoint(endpoint), secret };
}

export async function updateEndpoint(ctx: DomainContext, endpointId: string, input: Partial<EndpointInput> & { isActive?: boolean }) {
  enterWebhooks(ctx, 'webhooks:manage');
  if (input.url !== undefined) await assertDeliverable(input.url);
  const endpoint = await loadEndpoint(ctx, endpointId);
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
    ...(input.isActive !== undefined ? { isActive: input.isActive } : {}),
  };
  if (Object.keys(changes).length === 0) return presentEndpoint(endpoint);
  const updated = await db()
    .entities.webhookEndpoint.patch({ orgId: ctx.org.orgId, endpointId })
    .set({ ...changes, updatedAt: ctx.clock.now().toISOString() })
    .go({ response: 'all_new' })
    .catch((error: unknown) => {
      throw isConditionFailure(error) ? notFound('Webhook endpoint') : error;
    });
  return presentEndpoint(updated.data as WebhookEndpointItem);
}

/** Deletes an endpoint; the organization's counter falls in the same transaction. */
export async function deleteEndpoint(ctx: DomainContext, endpointId: string): Promise<void> {
  enterWebhooks(ctx, 'webhooks:manage');
  const endpoint = await loadEndpoint(ctx, endpointId);
  const counts = ctx.org.webhookEndpointCount !== undefined;
  await transact((e) => [
    guarded(
      e.webhookEndpoint.delete({ orgId: endpoint.orgId, endpointId }).where((attr, op) => op.exists(attr.endpointId)).commit(),
      () => notFound('Webhook endpoint'),
    ),
    ...(counts ? [counterDown(e, ctx.org.orgId, 'webhookEndpointCount')] : []),
  ]);
}
