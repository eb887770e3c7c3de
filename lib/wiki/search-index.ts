import type { Clock } from '../core/clock.js';
import { db } from '../db/service.js';
import type { TransactionEntities, TransactionItem } from '../db/transact.js';
import { mapLimited } from '../core/concurrency.js';
import { DELETED_PAGE_VERSION, SEARCH_PENDING_SHARDS, type WikiPageItem, type WikiSearchDocItem, type WikiTermItem } from '../db/entities/index.js';
import { eventPuts, jobKind, jobRecord, type JobRun } from '../events/index.js';
import { identityOf, indexPendingSubject, indexSubject, itemTarget, sweepStaleMarkers, type IndexSubject } from '../search/index.js';
import { readContent } from './content.js';
import { pageTermsOf } from './search-rule.js';

/*
 * The wiki search index (lib/db/entities/wiki-search.ts), as ticket search keeps its own: every
 * page write that changes its title or content (and a deletion) writes, in its transaction, a
 * pending marker and a job; the events function runs the job (WIKI_SEARCH_INDEX_JOB), which
 * brings the page's term entries to the page as it is then, through the engine of lib/search,
 * and clears the marker. A search reads the markers first and judges pending pages itself.
 */

/** The job that indexes one page's words. */
export const WIKI_SEARCH_INDEX_JOB = jobKind('wiki.search-index', (z) => z.object({ spaceId: z.string(), pageId: z.string() }));

/** The marker and the job of a page write that changes its title or content (in the write's transaction). */
export function pageIndexItems(e: TransactionEntities, page: Pick<WikiPageItem, 'orgId' | 'spaceId' | 'pageId' | 'version'>, clock: Clock): TransactionItem[] {
  const job = jobRecord(WIKI_SEARCH_INDEX_JOB, page.orgId, clock, { subjectId: `wikisearch:${page.pageId}`, data: { spaceId: page.spaceId, pageId: page.pageId } });
  return [e.wikiSearchPending.put({ orgId: page.orgId, spaceId: page.spaceId, pageId: page.pageId, version: page.version, at: job.occurredAt }).commit(), ...eventPuts(e, [job])];
}

/** Indexes one page: its entries brought to the page as it is now (none once it is gone, and its record deleted). */
export async function indexWikiPage(orgId: string, spaceId: string, pageId: string, clock: Clock): Promise<void> {
  await indexSubject(pageSubject(orgId, spaceId, pageId), clock);
}

function pageSubject(orgId: string, spaceId: string, pageId: string): IndexSubject<WikiTermItem, WikiSearchDocItem> {
  const key = { orgId, spaceId, pageId };
  return {
    record: { ...itemTarget(db().entities.wikiSearchDoc.get(key).params()), create: { ...identityOf(db().entities.wikiSearchDoc), ...key } },
    read: async () => {
      const page = (await db().entities.wikiPage.get(key).go({ consistent: true })).data as WikiPageItem | null;
      if (!page) return { version: DELETED_PAGE_VERSION, want: new Map(), gone: true };
      const content = await readContent({ ...key, version: page.version, chunkCount: page.chunkCount });
      const { terms, titleTerms } = pageTermsOf(page.title, content);
      return { version: page.version, want: new Map(terms.map((term) => [term, { ...key, term, inTitle: titleTerms.has(term) }])) };
    },
    listed: (record) => record.terms ?? [],
    holds: (record) => {
      const inTitle = new Set(record.titleTerms ?? []);
      return (term, entry) => inTitle.has(term) === entry.inTitle;
    },
    kept: (want) => ({ set: { terms: [...want.keys()], titleTerms: [...want.values()].filter((entry) => entry.inTitle).map((entry) => entry.term) }, remove: [] }),
    write: async (puts, deletes) => {
      const terms = db().entities.wikiTerm;
      const [put, deleted] = await Promise.all([
        puts.length > 0 ? terms.put(puts).go({ concurrency: 4 }) : { unprocessed: [] },
        deletes.length > 0 ? terms.delete(deletes.map((term) => ({ ...key, term }))).go({ concurrency: 4 }) : { unprocessed: [] },
      ]);
      if (put.unprocessed.length + deleted.unprocessed.length > 0) throw new Error('Wiki search entries left unprocessed; the job is retried');
    },
    marker: itemTarget(db().entities.wikiSearchPending.get({ orgId, pageId }).params()),
  };
}

/**
 * Deleted pages leave the index: a marker above any version (so a run still indexing the page
 * as it was indexes again), then the page indexed as gone. Called by the purge of deleted
 * pages; replayed, it finds nothing left.
 */
export async function forgetPages(orgId: string, spaceId: string, pageIds: string[], clock: Clock): Promise<void> {
  await mapLimited(pageIds, 4, async (pageId) => {
    await db().entities.wikiSearchPending.put({ orgId, spaceId, pageId, version: DELETED_PAGE_VERSION, at: clock.now().toISOString() }).go({ response: 'none' });
    await indexWikiPage(orgId, spaceId, pageId, clock);
  });
}

/** The handler of WIKI_SEARCH_INDEX_JOB (lib/wiki/jobs.ts). */
export async function runWikiSearchIndexJob(event: JobRun<{ spaceId: string; pageId: string }>, clock: Clock): Promise<number> {
  // Only while its marker stands (a replayed or already-covered job writes nothing).
  await indexPendingSubject(pageSubject(event.orgId, event.data.spaceId, event.data.pageId), clock);
  return 0;
}

/** Markers handled per sweep and partition. */
const SWEEP_BATCH = 100;

/** The sweeper's task: wiki markers no run cleared (`sweepStaleMarkers`), from the `wiki#n` byAge partitions. A scope limits it to one organization. */
export async function sweepStaleWikiIndex(clock: Clock, scope: { orgId?: string } = {}): Promise<number> {
  const orgId = scope.orgId;
  const older = async (before: string) => {
    const stale = await Promise.all(
      Array.from({ length: SEARCH_PENDING_SHARDS }, async (_, shard) => {
        const query = db().entities.wikiSearchPending.query.byAge({ pendingShard: `wiki#${shard}` }).lt({ at: before });
        return (orgId === undefined ? await query.go({ limit: SWEEP_BATCH }) : await query.where((attr, op) => op.eq(attr.orgId, orgId)).go({ pages: 'all' })).data;
      }),
    );
    return stale.flat();
  };
  return sweepStaleMarkers(clock, older, (marker) => indexWikiPage(marker.orgId, marker.spaceId, marker.pageId, clock));
}
