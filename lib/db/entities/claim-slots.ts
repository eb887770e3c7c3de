import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * An agent's claim counter: `held` is the number of tickets whose claim names the agent
 * (live or lapsed but not yet cleared). Every claim write of an agent changes it in the same
 * transaction as the ticket (ADD 1 guarded by `held < max`, ADD -1 on release and expiry), so
 * the per-agent concurrent-claim maximum holds exactly under concurrent requests.
 */
export const ClaimSlots = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'claimSlots', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    agentId: { type: 'string', required: true },
    held: { type: 'number', required: true, default: 0 },
  },
  indexes: {
    byAgent: { pk: { field: 'pk', composite: ['orgId', 'agentId'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
export type ClaimSlotsItem = EntityItem<ReturnType<typeof ClaimSlots>>;
