import { db } from '../db/service.js';
import { batchGetMixed } from '../db/batch.js';
import type { TransactionEntities, TransactionItem } from '../db/transact.js';
import { versionKeyOf, type WikiChunkItem } from '../db/entities/index.js';

/*
 * Page content storage (docs/features.md, Wiki). A version's content is cut into
 * WikiChunk items of at most WIKI_CHUNK_BYTES of UTF-8, each cut between two code points, so a
 * page at the limit (500,000 UTF-16 code units: up to 1.5 MB of UTF-8 for CJK text) is at most
 * six items, each far below DynamoDB's 400 KB, and comes back exactly as written.
 */

/** UTF-8 bytes of one chunk. */
export const WIKI_CHUNK_BYTES = 300_000;

/** Splits text into pieces of at most `maxBytes` UTF-8 bytes, never inside a code point (no pieces for empty text). */
export function chunkText(text: string, maxBytes = WIKI_CHUNK_BYTES): string[] {
  const chunks: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let index = 0; index < text.length; ) {
    const code = text.codePointAt(index)!;
    const units = code > 0xffff ? 2 : 1;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) {
      chunks.push(text.slice(start, index));
      start = index;
      bytes = 0;
    }
    bytes += size;
    index += units;
  }
  if (start < text.length) chunks.push(text.slice(start));
  return chunks;
}

export interface VersionRef {
  orgId: string;
  spaceId: string;
  pageId: string;
  version: number;
  chunkCount: number;
}

/** The transaction items that store a version's content. */
export function contentPuts(e: TransactionEntities, ref: Omit<VersionRef, 'chunkCount'>, content: string): TransactionItem[] {
  return chunkText(content).map((text, index) =>
    e.wikiChunk.put({ orgId: ref.orgId, spaceId: ref.spaceId, pageId: ref.pageId, versionKey: versionKeyOf(ref.version), index, text }).commit(),
  );
}

/** How many chunks `content` takes. */
export const chunkCountOf = (content: string): number => chunkText(content).length;

/** A version's content: its chunks in one Query, joined in order. */
export async function readContent(ref: VersionRef): Promise<string> {
  if (ref.chunkCount === 0) return '';
  const { data } = await db()
    .entities.wikiChunk.query.byVersion({ orgId: ref.orgId, spaceId: ref.spaceId, pageId: ref.pageId, versionKey: versionKeyOf(ref.version) })
    .go({ pages: 'all' });
  return joinChunks(data);
}

/** The current content of many pages: their chunks in BatchGetItems (100 keys each, in parallel). */
export async function readContents(refs: VersionRef[]): Promise<Map<string, string>> {
  const keys = refs.flatMap((ref) =>
    Array.from({ length: ref.chunkCount }, (_, index) => ({ orgId: ref.orgId, spaceId: ref.spaceId, pageId: ref.pageId, versionKey: versionKeyOf(ref.version), index })),
  );
  const found = ((await batchGetMixed(keys.map((key) => ({ entity: db().entities.wikiChunk, key })))) as (WikiChunkItem | undefined)[]).filter(
    (chunk): chunk is WikiChunkItem => chunk !== undefined,
  );
  const byPage = new Map<string, WikiChunkItem[]>();
  for (const chunk of found) byPage.set(chunk.pageId, [...(byPage.get(chunk.pageId) ?? []), chunk]);
  return new Map(refs.map((ref) => [ref.pageId, joinChunks(byPage.get(ref.pageId) ?? [])]));
}

const joinChunks = (chunks: WikiChunkItem[]): string => [...chunks].sort((a, b) => a.index - b.index).map((chunk) => chunk.text).join('');
