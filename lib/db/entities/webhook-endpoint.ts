import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * A webhook endpoint of an organization (at most 20). Its signing secret is stored sealed
 * (AES-256-GCM, lib/core/sealed.ts): recoverable by the service to sign deliveries, never
 * shown again after creation.
 */
export const WebhookEndpoint = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'webhookEndpoint', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    endpointId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    url: { type: 'string', required: true },
    events: { type: 'list', items: { type: 'string' }, required: true },
    isActive: { type: 'boolean', required: true, default: true },
    /** The secret, sealed: base64 of IV ‖ ciphertext ‖ tag. */
    sealedSecret: { type: 'string', required: true },
    /** When the first of an unbroken run of failed attempts was made; cleared by a success. */
    failingSince: { type: 'string' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['endpointId'] } },
  },
}, config);
export type WebhookEndpointItem = EntityItem<ReturnType<typeof WebhookEndpoint>>;

/** Endpoints an organization may have. */
export const MAX_WEBHOOK_ENDPOINTS = 20;
