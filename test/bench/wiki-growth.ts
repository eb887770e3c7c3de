/**
 * `npm run bench:wiki-growth`: how wiki search grows with the wiki. One organization of 4 spaces
 * is grown to 100, 500 and 1,000 pages of 10,000 characters (1, 5 and 10 MB of text; page
 * items and content batch-written, then each page indexed as the events function does), and at
 * each size every case is timed over real HTTP against the local runtime, with its DynamoDB
 * round trips. Every page's words come from a vocabulary of 150; `needle` is on one page,
 * `bravo` on one in 20, `alpha` on all. The last rows are the full read (an organization not in
 * the index) for contrast. Prints one table for docs/performance.md; asserts nothing.
 */
import { growthCell, ok, send, timeCase, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { db } from '../../lib/db/service.js';
import { newId } from '../../lib/core/ids.js';
import { versionKeyOf, type WikiPageItem } from '../../lib/db/entities/index.js';
import { chunkText } from '../../lib/wiki/content.js';
import { indexWikiPage } from '../../lib/wiki/index.js';
import { mapLimited } from '../../lib/core/concurrency.js';
import { systemClock } from '../../lib/core/clock.js';

const RUNS = Number(process.env.BENCH_GROWTH_RUNS ?? 7);
const WARMUP = 2;
const SPACES = 4;
const SIZES = [100, 500, 1_000];
const PAGE_CHARACTERS = 10_000;
const VOCABULARY = Array.from({ length: 150 }, (_, index) => `word${index.toString(36)}q`);

/** A page's content: vocabulary words in a fixed pseudo-random order, with `bravo` on one page in 20 and `needle` on one. */
function contentOf(number: number): string {
  const words: string[] = ['alpha'];
  let seed = number * 7919 + 17;
  let length = 6;
  while (length < PAGE_CHARACTERS - 40) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const word = VOCABULARY[seed % VOCABULARY.length]!;
    words.push(word);
    length += word.length + 1;
  }
  if (number % 20 === 0) words.push('bravo');
  if (number === 7) words.push('needle');
  return words.join(' ').slice(0, PAGE_CHARACTERS);
}

/** Batch-writes pages `from`…`to - 1` (items and content), spread over the spaces, then indexes each. */
async function seedPages(orgId: string, userId: string, spaceIds: string[], from: number, to: number): Promise<void> {
  const now = new Date().toISOString();
  const pages: WikiPageItem[] = [];
  const chunks = [];
  for (let number = from; number < to; number += 1) {
    const content = contentOf(number);
    const parts = chunkText(content);
    const page: WikiPageItem = {
      orgId, spaceId: spaceIds[number % spaceIds.length]!, pageId: newId('wpg'), title: `Page ${number}`, isPublished: true, order: 0, version: 1, revision: 1,
      chunkCount: parts.length, contentLength: content.length, createdById: userId, createdByName: 'Bench Admin', updatedById: userId, updatedByName: 'Bench Admin', createdAt: now, updatedAt: now,
    };
    pages.push(page);
    chunks.push(...parts.map((text, index) => ({ orgId, spaceId: page.spaceId, pageId: page.pageId, versionKey: versionKeyOf(1), index, text })));
  }
  await db().entities.wikiPage.put(pages).go({ concurrency: 4 });
  await db().entities.wikiChunk.put(chunks).go({ concurrency: 4 });
  await mapLimited(pages, 8, (page) => indexWikiPage(orgId, page.spaceId, page.pageId, systemClock));
}

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, logRequests: false, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const slug = 'bench-wiki-growth';
    const signup = await ok(send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: slug, slug, name: 'Bench Admin', email: `admin@${slug}.test`, password: 'bench password 1' }), 'signup');
    const session = { authorization: `Bearer ${signup.token}`, 'x-organization': slug };
    const orgId: string = signup.organization.id;
    const spaceIds: string[] = [];
    for (let index = 0; index < SPACES; index += 1) spaceIds.push((await ok(send(base, 'POST', '/api/v1/wiki/spaces', session, { name: `Growth ${index}` }), 'space')).id);
    const space = `/api/v1/wiki/spaces/${spaceIds[0]}`;
    const get = (path: string) => () => send(base, 'GET', path, session);
    const page = 'page=1&limit=20';
    const cases: [string, () => Promise<Sample>][] = [
      ['space: pages, page 1 (unfiltered)', get(`${space}/pages?${page}`)],
      ['one page by id (10,000 characters)', () => send(base, 'GET', `${space}/pages/${firstPageId}`, session)],
      ['space: search, 1 page matches', get(`${space}/pages?search=needle&${page}`)],
      ['space: search, 1 in 20', get(`${space}/pages?search=bravo&${page}`)],
      ['space: search, every page', get(`${space}/pages?search=alpha&${page}`)],
      ['/wiki/search: 1 page matches', get(`/api/v1/wiki/search?q=needle&${page}`)],
      ['/wiki/search: 1 in 20', get(`/api/v1/wiki/search?q=bravo&${page}`)],
      ['/wiki/search: every page', get(`/api/v1/wiki/search?q=alpha&${page}`)],
      ['/wiki/search: 1 page matches (full read)', get(`/api/v1/wiki/search?q=needle&${page}`)],
    ];
    let firstPageId: string | undefined;
    // The full read is what a search does while more pages are pending than it judges itself (a
    // bulk import in progress): markers of 51 pages that do not exist, put for that case only.
    const markers = Array.from({ length: 51 }, (_, index) => ({ orgId, spaceId: 'wsp_ABSENT', pageId: `wpg_ABSENT${index}`, version: 1, at: new Date().toISOString() }));
    const bulkImport = async (pending: boolean) => {
      if (pending) await db().entities.wikiSearchPending.put(markers).go();
      else await db().entities.wikiSearchPending.delete(markers.map(({ pageId }) => ({ orgId, pageId }))).go();
    };

    const results = new Map<string, string[]>(cases.map(([name]) => [name, []]));
    let seeded = 0;
    for (const size of SIZES) {
      const started = Date.now();
      await seedPages(orgId, signup.user.id, spaceIds, seeded, size);
      seeded = size;
      firstPageId ??= (await ok(send(base, 'GET', `${space}/pages?${page}`, session), 'first page')).data[0].id;
      console.error(`grown to ${size} pages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      for (let warm = 0; warm < 5; warm += 1) await cases[0]![1]();
      let pageOne = 0;
      for (const [name, run] of cases) {
        if (name.endsWith('(full read)')) await bulkImport(true);
        const samples = await timeCase(name, run, RUNS, WARMUP);
        if (name.endsWith('(full read)')) await bulkImport(false);
        const { p50, cell } = growthCell(samples, name.includes('unfiltered') ? 0 : pageOne);
        if (name.includes('unfiltered')) pageOne = p50;
        results.get(name)!.push(cell);
        console.error(`${size} ${name}: ${p50.toFixed(1)} ms`);
      }
    }
    console.log(`\n${RUNS} sequential requests per case after ${WARMUP} warm-up requests (p50; × the space's unfiltered page 1 at that size; DynamoDB round trips; read capacity units, p50; the total), local runtime + DynamoDB Local, Node ${process.version}\n`);
    console.log(`| case | ${SIZES.map((size) => `${size.toLocaleString('en-US')} pages (${(size * PAGE_CHARACTERS) / 1_000_000} MB)`).join(' | ')} |`);
    console.log(`|---|${SIZES.map(() => '---').join('|')}|`);
    for (const [name, cells] of results) console.log(`| ${name} | ${cells.join(' | ')} |`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
