import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { searchShardOf } from './ticket-search.js';

/**
 * The wiki search index (lib/wiki/search-index.ts), kept by the events function from the page
 * writes (a page's words can be thousands), with a pending marker written in the page's own
 * transaction, so a search is exact at once. The same design as ticket search.
 */

/**
 * One word of one page (of its title or its current content). Keyed by (space, organization),
 * then term and page id: a word prefix is one Query of a key range that reads only the entries
 * of the words it begins. The partition is the index's own (space first: not the space's
 * partition, where its pages, versions and content are). `inTitle` says the word is one of the
 * title's (title matches rank first).
 */
export const WikiTerm = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'wikiTerm', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    spaceId: { type: 'string', required: true },
    term: { type: 'string', required: true },
    pageId: { type: 'string', required: true },
    inTitle: { type: 'boolean', required: true, default: false },
  },
  indexes: {
    byTerm: { pk: { field: 'pk', composite: ['spaceId', 'orgId'] }, sk: { field: 'sk', composite: ['term', 'pageId'] } },
  },
}, config);
export type WikiTermItem = EntityItem<ReturnType<typeof WikiTerm>>;

/**
 * What the index holds for one page (beside the page, in its space's partition): the page
 * version it reflects, its terms and which of them are the title's. `extra`, `dirty` and the
 * lease as for tickets (lib/search/indexer.ts).
 */
export const WikiSearchDoc = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'wikiSearch', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    spaceId: { type: 'string', required: true },
    pageId: { type: 'string', required: true },
    version: { type: 'number' },
    terms: { type: 'list', items: { type: 'string' } },
    titleTerms: { type: 'list', items: { type: 'string' } },
    extra: { type: 'list', items: { type: 'string' } },
    dirty: { type: 'boolean' },
    leaseToken: { type: 'string' },
    leaseUntil: { type: 'string' },
  },
  indexes: {
    bySpace: { pk: { field: 'pk', composite: ['orgId', 'spaceId'] }, sk: { field: 'sk', composite: ['pageId'] } },
  },
}, config);
export type WikiSearchDocItem = EntityItem<ReturnType<typeof WikiSearchDoc>>;

/**
 * A page whose entries may not reflect it yet: written (with the page's version, or
 * DELETED_PAGE_VERSION for a deletion) in the transaction of every page write that changes its
 * title or content, deleted by the run that indexes that version. One partition per
 * organization; byAge (gsi4, partitions `wiki#n`) lets the sweeper find markers no run cleared.
 */
export const WikiSearchPending = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'wikiSearchPending', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    pageId: { type: 'string', required: true },
    spaceId: { type: 'string', required: true },
    version: { type: 'number', required: true },
    /** When the write that left the marker happened (ISO 8601). */
    at: { type: 'string', required: true },
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    pendingShard: { type: 'string', watch: ['pageId'], set: (_value?: string, item?: any) => searchShardOf(item?.pageId ?? '', 'wiki') },
  },
  indexes: {
    byOrganization: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['pageId'] } },
    byAge: { index: 'gsi4', pk: { field: 'gsi4pk', composite: ['pendingShard'] }, sk: { field: 'gsi4sk', composite: ['at', 'pageId'] } },
  },
}, config);
export type WikiSearchPendingItem = EntityItem<ReturnType<typeof WikiSearchPending>>;

/** The version a deletion's marker carries: above any page version, so no run of the old page clears it. */
export const DELETED_PAGE_VERSION = Number.MAX_SAFE_INTEGER;
