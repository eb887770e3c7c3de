import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const PLANS = ['FREE', 'PRO', 'ENTERPRISE'] as const;
export type Plan = (typeof PLANS)[number];

/**
 * The organization is also the auth context: every authenticated request reads it in the
 * same BatchGetItem as the credential and the user. It therefore carries a compact copy of
 * each permission group (`groupDirectory`: type, permissions, system key), written in the
 * same transaction as the group itself, so resolving a caller's permissions, or checking
 * the groups a user is put in, costs no extra round trip.
 */
/** Live claims an agent may hold at once unless it or its organization says otherwise (spec §8: 1–50, default 3). */
export const DEFAULT_MAX_CONCURRENT_CLAIMS = 3;

export const Organization = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'organization', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    slug: { type: 'string', required: true },
    name: { type: 'string', required: true },
    plan: { type: PLANS, required: true, default: 'FREE' },
    timeTrackingEnabled: { type: 'boolean', required: true, default: true },
    defaultTimeFactor: { type: 'number', required: true, default: 1 },
    defaultMaxConcurrentClaims: { type: 'number', required: true, default: DEFAULT_MAX_CONCURRENT_CLAIMS },
    /** groupId → {type, permissions, systemKey} (denormalized from PermissionGroup, see above). */
    groupDirectory: { type: 'any', default: () => ({}) },
    /** Agent policies (spec §2.16): {statusTransitionsRequireApproval, prsRequireHumanReview}; absent = defaults. */
    agentPolicies: { type: 'any' },
    /** The organization's dispatch breaker: {paused, reason, byId, byName, at} while thrown; absent otherwise (lib/tickets/claims/dispatch.ts). */
    dispatchPause: { type: 'any' },
    /**
     * Live (not deleted) agents: changed in the transaction that creates or deletes an agent,
     * guarded by the 25-agent limit, so the limit holds under concurrent creates.
     */
    liveAgentCount: { type: 'number' },
    /** Webhook endpoints of the organization (absent: count them; at most MAX_WEBHOOK_ENDPOINTS). */
    webhookEndpointCount: { type: 'number' },
    /**
     * Every ticket of the organization has its facet entries (lib/db/entities/ticket-facet.ts):
     * true from sign-up, or once `npm run backfill-indexes` has indexed an older organization.
     * Until then its filtered lists read their tickets as before.
     */
    ticketFacetsIndexed: { type: 'boolean' },
    /** Every ticket is counted in FacetCount (`facetsCounted`): a facet list may read its total there. */
    facetCountsKept: { type: 'boolean' },
    /**
     * Likewise for the ticket search index (lib/db/entities/ticket-search.ts, its entries in
     * partitions of their own since version 2): searches read it once every ticket is in it. It
     * replaces `ticketSearchIndexed`, the flag of the first layout, which no code reads any more.
     */
    ticketTermsIndexed: { type: 'boolean' },
    /**
     * Every ticket's search entries carry `shared` (lib/db/entities/ticket-search.ts): a board
     * search of one word that most of the board matches may count its total by COUNT.
     */
    searchPrefixesCounted: { type: 'boolean' },
    /**
     * Every ticket's search entries are counted in their terms' TicketTermCount items: a search
     * of one word reads its total from them, not from its entries.
     */
    searchTermsCounted: { type: 'boolean' },
    /** Every time entry of the organization is counted in its ticket's totals (TicketTime): its ticket summaries read them. */
    ticketTimeAggregated: { type: 'boolean' },
    /** Every time entry of the organization carries the keys of its by-date indexes (`pendingByDate`, `byTicketDate`): the approvers' queue and a ticket's entries are paged from them. */
    timeEntriesByDate: { type: 'boolean' },
    /** Every wiki page of the organization is in the wiki search index (lib/db/entities/wiki-search.ts): wiki searches read it. */
    wikiSearchIndexed: { type: 'boolean' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byId: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
export type OrganizationItem = EntityItem<ReturnType<typeof Organization>>;

/** Uniqueness of the subdomain slug, and slug → organization lookup. */
export const OrganizationSlug = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'orgSlug', version: '1', service: 'wm' },
  attributes: {
    slug: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
  },
  indexes: {
    bySlug: { pk: { field: 'pk', composite: ['slug'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
export type OrganizationSlugItem = EntityItem<ReturnType<typeof OrganizationSlug>>;
