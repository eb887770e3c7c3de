import { beforeAll, describe, expect, it } from 'vitest';
import { createMember, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { waitUntil } from '../support/wait.js';
import { answered } from '../support/lists.js';
import { db } from '../../lib/db/service.js';
import { systemClock, type Clock } from '../../lib/core/clock.js';
import { runSweep } from '../../lib/sweeper/index.js';
import { indexWikiPage } from '../../lib/wiki/index.js';
import { judgePage, MAX_PAGE_TERM_BYTES, pageTermsOf, snippetOf } from '../../lib/wiki/search-rule.js';
import { wordsOf } from '../../lib/search/index.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Wiki search from the wiki search index (lib/wiki/search-index.ts) against the full read
 * applying the same rule: every page of results (order, totals, snippets) of space searches and
 * organization-wide searches must be identical, as an administrator and as a customer user (who
 * sees published pages only), once the events function has indexed every write and right after
 * writes it has not indexed yet. The full read is what a search does while more pages are
 * pending than it judges itself (a bulk import): `withFullRead` adds the markers of 51 pages that
 * do not exist, so the same searches read every visible page, then takes them away.
 */
const W = '/api/v1/wiki/spaces';
const clockAt = (date: Date): Clock => ({ now: () => date });
let org: TestOrg;
let customerToken: string;
const spaces: string[] = [];
let folderId: string;
const pages: { id: string; spaceId: string }[] = [];

/** Runs `read` while the organization has more pending pages than a search judges itself (markers of pages that do not exist). */
async function withFullRead<T>(read: () => Promise<T>): Promise<T> {
  const markers = Array.from({ length: 51 }, (_, index) => ({ orgId: org.orgId, spaceId: 'wsp_ABSENT', pageId: `wpg_ABSENT${index}`, version: 1, at: new Date().toISOString() }));
  await db().entities.wikiSearchPending.put(markers).go();
  try {
    return await read();
  } finally {
    await db().entities.wikiSearchPending.delete(markers.map(({ orgId, pageId }) => ({ orgId, pageId }))).go();
  }
}
const pendingOf = async () => (await db().entities.wikiSearchPending.query.byOrganization({ orgId: org.orgId }).go({ consistent: true })).data;
const drained = async () => expect(await waitUntil(pendingOf, (pending) => pending.length === 0, 60_000)).toEqual([]);
const termsOf = async (spaceId: string) => (await db().entities.wikiTerm.query.byTerm({ orgId: org.orgId, spaceId }).go({ pages: 'all', consistent: true })).data;

const SEARCHES = ['canary', 'CANARY deplo', 'creme', 'Crème brûlée', 'roll', 'r', 'needle', 'guide', 'deploy guide', 'zzz-nothing', '—', 'dashboards watch'];

/** Every page of a search's results, read 3 at a time, as the administrator or the customer user. */
async function allResults(path: string, token?: string): Promise<{ status: number; data: unknown[]; total: number }> {
  const data: unknown[] = [];
  let total = 0;
  for (let page = 1; page <= 30; page += 1) {
    const response = await org.call('GET', `${path}&limit=3&page=${page}`, token ? { token } : {});
    // A space the customer user may not see is 404 both ways.
    if (response.status !== 200) return { status: response.status, data: [], total: 0 };
    const body = response.body;
    total = body.total;
    data.push(...body.data);
    if (page >= body.totalPages) break;
  }
  return { status: 200, data, total };
}

function searchesOf(words: string[]): string[] {
  return words.flatMap((search) => {
    const q = encodeURIComponent(search);
    return [`/api/v1/wiki/search?q=${q}`, ...spaces.map((spaceId) => `${W}/${spaceId}/pages?search=${q}`), `${W}/${spaces[0]}/pages?search=${q}&folderId=${folderId}`];
  });
}

/** Each search through the index, then through the full read, for both callers: identical. Answers how many found something. */
async function compare(searches: string[]): Promise<number> {
  const callers = [undefined, customerToken];
  const indexed: unknown[] = [];
  for (const search of searches) for (const token of callers) indexed.push(await allResults(search, token));
  return withFullRead(async () => {
    let nonEmpty = 0;
    let index = 0;
    for (const search of searches) {
      for (const token of callers) {
        const full = await allResults(search, token);
        expect(indexed[index++], `${search} as ${token ? 'customer' : 'admin'}`).toEqual(full);
        if (full.total > 0) nonEmpty += 1;
      }
    }
    return nonEmpty;
  });
}

const texts: [string, string][] = [
  ['Deploy guide', `${'Intro text. '.repeat(20)}Run the CANARY rollout first, then watch the dashboards.`],
  ['Canary checklist', 'Short.'],
  ['Crème brûlée', 'Dessert for the release party'],
  ['CREME BRULEE recipe', ''],
  ['Rollback runbook', 'Deployment rollback: a needle in a haystack of steps'],
  ['Café naïve', 'résumé of the deployment review'],
  ['Unrelated', 'nothing to see here'],
];

beforeAll(async () => {
  org = await signupOrg();
  const customer = await answered(org.call('POST', '/api/v1/customers', { body: { name: 'Search client' } }), 201);
  const board = await answered(org.call('POST', '/api/v1/boards', { body: { name: 'Wiki search board', customerIds: [customer.id] } }), 201);
  customerToken = (await createMember(org, { name: 'Search customer', role: 'CUSTOMER', customerId: customer.id })).token;
  spaces.push((await answered(org.call('POST', `${W}/board/${board.id}`, { body: { name: 'Linked' } }), 201)).id);
  spaces.push((await answered(org.call('POST', W, { body: { name: 'Other' } }), 201)).id);
  folderId = (await answered(org.call('POST', `${W}/${spaces[0]}/folders`, { body: { name: 'Runbooks' } }), 201)).id;
  for (let index = 0; index < 21; index += 1) {
    const [title, content] = texts[index % texts.length]!;
    const spaceId = spaces[index % 3 === 2 ? 1 : 0]!;
    const body = { title: `${title} ${index}`, content, isPublished: index % 2 === 0, ...(spaceId === spaces[0] && index % 4 === 1 ? { folderId } : {}) };
    pages.push({ id: (await answered(org.call('POST', `${W}/${spaceId}/pages`, { body }), 201)).id, spaceId });
  }
  const path = (page: { id: string; spaceId: string }) => `${W}/${page.spaceId}/pages/${page.id}`;
  // A new title (its words leave the title, others enter), new content, a deletion, a folder deleted with its pages.
  await answered(org.call('PATCH', path(pages[0]!), { body: { title: 'Guide to canary deploys' } }));
  await answered(org.call('PATCH', path(pages[4]!), { body: { content: 'Rewritten: no more of those words' } }));
  await answered(org.call('DELETE', path(pages[3]!)), 204);
  const doomed = await answered(org.call('POST', `${W}/${spaces[1]}/folders`, { body: { name: 'Doomed' } }), 201);
  await answered(org.call('POST', `${W}/${spaces[1]}/pages`, { body: { title: 'Doomed canary', content: 'needle', folderId: doomed.id, isPublished: true } }), 201);
  await answered(org.call('DELETE', `${W}/${spaces[1]}/folders/${doomed.id}?deleteContents=true`), 204);
}, 120_000);

describe('wiki search', () => {
  it('finds pages by word prefixes of title and content, accents and case folded, title matches first', () => {
    const { terms, titleTerms } = pageTermsOf('Crème Brûlée', 'Deploying the CANARY; café-résumé');
    expect(terms).toEqual(['creme', 'brulee', 'deploying', 'the', 'canary', 'cafe', 'resume']);
    expect([...titleTerms]).toEqual(['creme', 'brulee']);
    expect(judgePage(wordsOf('CREME deplo'), terms, [...titleTerms])).toEqual({ inTitle: false });
    expect(judgePage(wordsOf('brul'), terms, [...titleTerms])).toEqual({ inTitle: true });
    expect(judgePage(wordsOf('ploy'), terms, [...titleTerms])).toBeUndefined();
    expect(judgePage(wordsOf('—'), terms, [...titleTerms])).toBeUndefined();
    // A page is searchable by its distinct words up to MAX_PAGE_TERM_BYTES, title first.
    const many = Array.from({ length: 30_000 }, (_, index) => `w${index.toString(36)}`).join(' ');
    const capped = pageTermsOf('Title word', many);
    expect(capped.terms.slice(0, 2)).toEqual(['title', 'word']);
    expect(capped.terms.join('').length).toBeLessThanOrEqual(MAX_PAGE_TERM_BYTES);
    expect(capped.terms.length).toBeLessThan(30_002);
    // The snippet is the content around the first word a search word begins (in the text as written), else the title.
    const content = `${'Intro. '.repeat(30)}Then the Café opens; CANARY after.`;
    expect(snippetOf('T', content, wordsOf('cafe'))).toMatch(/^….*Then the Café opens; CANARY after\.$/);
    expect(snippetOf('Crème brûlée', 'nothing here', wordsOf('creme'))).toBe('Crème brûlée');
    expect(snippetOf('T', 'e\u0301clair and e\u0301cole', wordsOf('ecole'))).toContain('e\u0301cole');
  });

  it('answers every page of results as the full read does, once every write is indexed', async () => {
    await drained();
    expect(await compare(searchesOf(SEARCHES))).toBeGreaterThan(12);
    // The deleted pages' entries go (in the purge of their content), and every live page has entries.
    const live = new Set(pages.filter((_, index) => index !== 3).map((page) => page.id));
    const indexed = async () => [...(await termsOf(spaces[0]!)), ...(await termsOf(spaces[1]!))].map((entry) => entry.pageId);
    expect(await waitUntil(async () => (await indexed()).filter((pageId) => !live.has(pageId)), (strays) => strays.length === 0, 30_000)).toEqual([]);
    expect(new Set(await indexed())).toEqual(live);
  }, 120_000);

  it('answers as the full read does right after writes the index has not caught up with', async () => {
    await drained();
    const path = (page: { id: string; spaceId: string }) => `${W}/${page.spaceId}/pages/${page.id}`;
    await answered(org.call('PATCH', path(pages[1]!), { body: { title: 'Pending canary title', isPublished: true } }));
    await answered(org.call('PATCH', path(pages[6]!), { body: { content: 'now it speaks of crème and needles' } }));
    await answered(org.call('POST', `${W}/${spaces[1]}/pages`, { body: { title: 'Fresh page', content: 'deploy guide for the canary', isPublished: true } }), 201);
    expect(await compare(searchesOf(['canary', 'creme needle', 'deploy guide']))).toBeGreaterThan(4);
    await drained();
    expect(await compare(searchesOf(['canary', 'creme needle', 'deploy guide']))).toBeGreaterThan(4);
  }, 120_000);

  it('ends in the page as it is however runs overlap, and a dead run is healed by the sweeper', async () => {
    await drained();
    const target = pages[7]!;
    const stored = async () => (await termsOf(target.spaceId)).filter((entry) => entry.pageId === target.id).map(({ term, inTitle }) => `${term}${inTitle ? '*' : ''}`).sort();
    const expected = await stored();
    expect(expected).toContain('deploy*');
    await Promise.all(Array.from({ length: 5 }, () => indexWikiPage(org.orgId, target.spaceId, target.id, systemClock)));
    expect(await stored()).toEqual(expected);
    // A run died holding the lease, midway: dirty, with a stray entry it had announced.
    await db().entities.wikiSearchDoc.patch({ orgId: org.orgId, spaceId: target.spaceId, pageId: target.id }).set({ leaseToken: 'dead-run', leaseUntil: new Date(Date.now() + 120_000).toISOString(), dirty: true, extra: ['deadword'] }).go();
    await db().entities.wikiTerm.put({ orgId: org.orgId, spaceId: target.spaceId, term: 'deadword', pageId: target.id, inTitle: false }).go();
    await answered(org.call('PATCH', `${W}/${target.spaceId}/pages/${target.id}`, { body: { title: 'Resurrected title' } }));
    // The job leaves the page to the lease's holder: the marker stays, and searches judge the page themselves.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect((await pendingOf()).map((marker) => marker.pageId)).toContain(target.id);
    expect(await compare(searchesOf(['resurrected', 'deadword']))).toBeGreaterThan(0);
    const results = await runSweep(clockAt(new Date(Date.now() + 180_000)), { orgId: org.orgId });
    expect(results.staleWikiIndex).toBeGreaterThanOrEqual(1);
    expect((await pendingOf()).map((marker) => marker.pageId)).not.toContain(target.id);
    expect(await stored()).toContain('resurrected*');
    expect(await stored()).not.toContain('deadword');
    expect(await stored()).not.toContain('deploy*');
    expect(await compare(searchesOf(['resurrected', 'deadword', 'deploy']))).toBeGreaterThan(0);
  }, 120_000);

  it('takes a deleted space\'s index with it', async () => {
    await drained();
    expect(await compare(searchesOf(['canary', 'CANARY deplo', 'Crème brûlée', 'r', 'zzz-nothing']))).toBeGreaterThan(6);
    // The space goes: its entries, records and markers with it.
    await answered(org.call('DELETE', `${W}/${spaces[1]}`), 204);
    const left = async () => [
      ...(await termsOf(spaces[1]!)),
      ...(await db().entities.wikiSearchDoc.query.bySpace({ orgId: org.orgId, spaceId: spaces[1]! }).go({ pages: 'all', consistent: true })).data,
      ...(await pendingOf()).filter((marker) => marker.spaceId === spaces[1]),
    ];
    expect(await waitUntil(left, (items) => items.length === 0, 90_000)).toEqual([]);
    const everywhere = await allResults(`/api/v1/wiki/search?q=canary`);
    expect(everywhere.total).toBeGreaterThan(0);
    expect(everywhere.data.every((hit: any) => hit.space.id === spaces[0])).toBe(true);
  }, 180_000);
});
