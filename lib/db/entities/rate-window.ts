import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * A fixed-window counter of one rate limit (e.g. token mints of one agent per hour):
 * incremented with a conditional ADD, removed by TTL after its window.
 */
export const RateWindow = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'rateWindow', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    key: { type: 'string', required: true },
    windowStart: { type: 'string', required: true },
    count: { type: 'number' },
    ttl: { type: 'number' },
  },
  indexes: {
    byKey: { pk: { field: 'pk', composite: ['orgId', 'key'] }, sk: { field: 'sk', composite: ['windowStart'] } },
  },
}, config);
export type RateWindowItem = EntityItem<ReturnType<typeof RateWindow>>;
