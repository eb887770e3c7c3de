import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const SUGGESTION_STATES = ['PENDING', 'ACCEPTED', 'REJECTED'] as const;
export type SuggestionState = (typeof SUGGESTION_STATES)[number];

/**
 * A status move an agent proposed into a gated status (Explainable Status boards), waiting for
 * a human to accept or reject it. Partitioned by ticket like comments; ULID sort keys, so a
 * Query returns them oldest first.
 */
export const Suggestion = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'suggestion', version: '1', service: 'wm' },
  attributes: {
    ticketId: { type: 'string', required: true },
    suggestionId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    fromStatusId: { type: 'string', required: true },
    toStatusId: { type: 'string', required: true },
    reason: { type: 'string' },
    suggestedById: { type: 'string', required: true },
    suggestedByName: { type: 'string', required: true },
    state: { type: SUGGESTION_STATES, required: true },
    decidedById: { type: 'string' },
    decidedByName: { type: 'string' },
    decidedAt: { type: 'string' },
    decisionReason: { type: 'string' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byTicket: { pk: { field: 'pk', composite: ['ticketId'] }, sk: { field: 'sk', composite: ['suggestionId'] } },
    /**
     * gsi2: the organization's PENDING suggestions, newest last (the console's inbox). Sparse: a
     * decision sets `state`, and the keys go (ElectroDB removes an index's keys when its
     * condition turns false), so the partition holds only what still waits for a person.
     */
    byPendingOrg: {
      index: 'gsi2',
      condition: (attr) => attr.state === 'PENDING',
      pk: { field: 'gsi2pk', composite: ['orgId'] },
      sk: { field: 'gsi2sk', composite: ['state', 'suggestionId'] },
    },
  },
}, config);
export type SuggestionItem = EntityItem<ReturnType<typeof Suggestion>>;
