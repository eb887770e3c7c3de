import type { Clock } from '../core/clock.js';
import { db } from '../db/service.js';
import { continueJob, jobKind, type JobRun, type JobPayload } from '../events/index.js';
import { forgetPages } from './search-index.js';

/*
 * Background deletion of wiki content. Deleting a space (or a page, or a folder with its
 * contents) removes what the API shows in its own transaction and writes an internal outbox
 * job of this kind; the events function runs it (`purgeWiki`, lib/wiki/jobs.ts), which deletes what is left: a whole space's partition, or the
 * versions and content of some pages. It deletes at most PURGE_ITEMS_PER_RUN items per run and
 * then writes a record that continues, so no size of space runs into the function's timeout.
 * Deleted pages leave the search index (`forgetPages`); a deleted space's index entries, records
 * and markers go with its partition.
 * A replayed record deletes what is already gone: nothing.
 */

export const WIKI_PURGE_JOB = jobKind(
  'wiki.purge',
  (z) => z.object({
    spaceId: z.string(),
    /** Only these pages' versions and content (the space lives on); the whole space when absent. */
    pageIds: z.optional(z.array(z.string())),
    /** Set on the continuations of a pages' purge: the pages already left the search index. */
    unindexed: z.optional(z.boolean()),
  }),
);
export type WikiPurge = JobPayload<typeof WIKI_PURGE_JOB>;

/** Items one run deletes before handing the rest to a new record. */
export const PURGE_ITEMS_PER_RUN = 4000;

type Deletion = () => Promise<unknown>;

/** The deletions still to do for a purge, at most `limit` items (and whether more remain). */
async function pending(orgId: string, purge: WikiPurge, limit: number): Promise<{ deletions: Deletion[]; more: boolean }> {
  const { wikiFolder, wikiPage, wikiVersion, wikiChunk, wikiTerm, wikiSearchDoc, wikiSearchPending } = db().entities;
  const scope = { orgId, spaceId: purge.spaceId };
  const deletions: Deletion[] = [];
  let count = 0;
  const take = <K>(keys: K[], remove: (batch: K[]) => Promise<unknown>) => {
    const room = Math.max(0, limit - count);
    const taken = keys.slice(0, room);
    count += taken.length;
    for (let start = 0; start < taken.length; start += 25) {
      const batch = taken.slice(start, start + 25);
      deletions.push(() => remove(batch));
    }
    return keys.length > taken.length;
  };
  const queries = purge.pageIds
    ? purge.pageIds.map((pageId) => ({
        versions: wikiVersion.query.byPage({ ...scope, pageId }).go({ pages: 'all', attributes: ['orgId', 'spaceId', 'pageId', 'versionKey'] }),
        chunks: wikiChunk.query.byVersion({ ...scope, pageId }).go({ pages: 'all', attributes: ['orgId', 'spaceId', 'pageId', 'versionKey', 'index'] }),
      }))
    : [
        {
          versions: wikiVersion.query.byPage(scope).go({ pages: 'all', attributes: ['orgId', 'spaceId', 'pageId', 'versionKey'] }),
          chunks: wikiChunk.query.byVersion(scope).go({ pages: 'all', attributes: ['orgId', 'spaceId', 'pageId', 'versionKey', 'index'] }),
        },
      ];
  let more = false;
  for (const query of queries) {
    more = take((await query.chunks).data, (batch) => wikiChunk.delete(batch).go()) || more;
    more = take((await query.versions).data, (batch) => wikiVersion.delete(batch).go()) || more;
  }
  if (!purge.pageIds) {
    // The space's search entries and records, and its pages' markers, before the pages (whose ids find the markers).
    const [terms, records, pages, folders] = await Promise.all([
      wikiTerm.query.byTerm(scope).go({ pages: 'all', attributes: ['orgId', 'spaceId', 'term', 'pageId'] }),
      wikiSearchDoc.query.bySpace(scope).go({ pages: 'all', attributes: ['orgId', 'spaceId', 'pageId'] }),
      wikiPage.query.bySpace(scope).go({ pages: 'all', attributes: ['orgId', 'spaceId', 'pageId'] }),
      wikiFolder.query.bySpace(scope).go({ pages: 'all', attributes: ['orgId', 'spaceId', 'folderId'] }),
    ]);
    more = take(terms.data, (batch) => wikiTerm.delete(batch).go()) || more;
    more = take(records.data, (batch) => wikiSearchDoc.delete(batch).go()) || more;
    more = take(pages.data, (batch) => Promise.all([wikiSearchPending.delete(batch.map(({ pageId }) => ({ orgId, pageId }))).go(), wikiPage.delete(batch).go()])) || more;
    more = take(folders.data, (batch) => wikiFolder.delete(batch).go()) || more;
  }
  return { deletions, more };
}

/** Runs one purge record: deletes up to PURGE_ITEMS_PER_RUN items, four batches at a time, and records a continuation if more remain. */
export async function purgeWiki(event: JobRun<WikiPurge>, clock: Clock, itemsPerRun = PURGE_ITEMS_PER_RUN): Promise<number> {
  const purge = event.data;
  // Deleted pages leave the search index first (by their records, which list their entries).
  if (purge.pageIds && !purge.unindexed) await forgetPages(event.orgId, purge.spaceId, purge.pageIds, clock);
  const { deletions, more } = await pending(event.orgId, purge, itemsPerRun);
  for (let start = 0; start < deletions.length; start += 4) await Promise.all(deletions.slice(start, start + 4).map((run) => run()));
  if (more) {
    await continueJob(WIKI_PURGE_JOB, event, clock, { ...purge, ...(purge.pageIds ? { unindexed: true } : {}) });
  }
  return 0;
}
