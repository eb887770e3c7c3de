import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createMember, expectValidationError, signupOrg, type ApiResponse, type TestOrg } from '../support/api.js';
import { waitUntil } from '../support/wait.js';
import { db } from '../../lib/db/service.js';
import { purgeWiki, WIKI_PURGE_JOB } from '../../lib/wiki/purge.js';
import { systemClock } from '../../lib/core/clock.js';
import { createBoard } from '../support/factories.js';

/*
 * The wiki through the local runtime (docs/features.md, Wiki): spaces and their slugs, the board
 * link, roles in both member modes, folders, pages with versions, search, and background
 * deletion. Spaces are limited to 10 per organization and hour, so each part signs up its own.
 */
const W = '/api/v1/wiki/spaces';

type Caller = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
const as = (org: TestOrg, token: string): Caller => (method, path, body) => api(method, path, { token, org: org.slug, ...(body !== undefined ? { body } : {}) });

async function created(response: Promise<ApiResponse>): Promise<any> {
  const result = await response;
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body;
}

describe('wiki spaces', () => {
  let org: TestOrg;
  let admin: Caller;
  beforeAll(async () => {
    org = await signupOrg();
    admin = (method, path, body) => org.call(method, path, body !== undefined ? { body } : {});
  });

  it('creates spaces with slugs unique in the organization, generated from the name when omitted', async () => {
    const first = await created(admin('POST', W, { name: 'Engineering Handbook', description: 'How we work', icon: '📘' }));
    expect(first).toMatchObject({ id: expect.stringMatching(/^ws_/), name: 'Engineering Handbook', slug: 'engineering-handbook', description: 'How we work', icon: '📘', boardId: null, memberMode: 'MANAGE_SEPARATE' });
    const second = await created(admin('POST', W, { name: 'Engineering handbook!' }));
    expect(second.slug).toBe('engineering-handbook-2');
    expect((await created(admin('POST', W, { name: 'Café Société' }))).slug).toBe('cafe-societe');
    const taken = await admin('POST', W, { name: 'Other', slug: 'engineering-handbook' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details.field).toBe('slug');
    expectValidationError(await admin('POST', W, { name: 'x'.repeat(101) }), 'name');
    expectValidationError(await admin('POST', W, { name: 'Long', description: 'd'.repeat(501) }), 'description');
    expectValidationError(await admin('POST', W, { name: 'Bad slug', slug: 'Not OK' }), 'slug');
    expectValidationError(await admin('POST', W, { name: 'Ghost board', boardId: 'brd_UNKNOWN' }), 'boardId');

    const renamed = await admin('PATCH', `${W}/${second.id}`, { name: 'Second', slug: 'second', description: null });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Second', slug: 'second', description: null });
    // The old slug is free again.
    expect((await created(admin('POST', W, { name: 'Again', slug: 'engineering-handbook-2' }))).slug).toBe('engineering-handbook-2');
    expect((await admin('PATCH', `${W}/${second.id}`, { slug: 'engineering-handbook' })).status).toBe(409);

    const listed = (await admin('GET', W)).body.map((space: any) => space.name);
    expect(listed).toEqual([...listed].sort((a: string, b: string) => a.localeCompare(b)));
    expect(listed).toContain('Second');
    expect((await admin('GET', `${W}/ws_UNKNOWN`)).status).toBe(404);
  });

  it('links a board to at most one space: create-and-link, get by board, link, unlink', async () => {
    const board = (await admin('POST', '/api/v1/boards', { name: 'Wiki board' })).body;
    expect((await admin('GET', `${W}/board/${board.id}`)).status).toBe(404);
    const space = await created(admin('POST', `${W}/board/${board.id}`, { name: 'Board docs' }));
    expect(space).toMatchObject({ boardId: board.id, memberMode: 'INHERIT_BOARD' });
    expect((await admin('GET', `${W}/board/${board.id}`)).body.id).toBe(space.id);
    expect((await admin('GET', `${W}?boardId=${board.id}`)).body.map((s: any) => s.id)).toEqual([space.id]);
    const second = await admin('POST', `${W}/board/${board.id}`, { name: 'Second docs' });
    expect(second.status).toBe(409);
    const loose = await created(admin('POST', W, { name: 'Loose docs' }));
    expect((await admin('POST', `${W}/${loose.id}/link-board`, { boardId: board.id })).status).toBe(409);
    expect((await admin('POST', `${W}/${space.id}/unlink-board`)).body.boardId).toBeNull();
    expect((await admin('GET', `${W}/board/${board.id}`)).status).toBe(404);
    const linked = await admin('POST', `${W}/${loose.id}/link-board`, { boardId: board.id });
    expect(linked.status).toBe(200);
    expect(linked.body.boardId).toBe(board.id);
    expect((await admin('GET', `${W}/board/${board.id}`)).body.id).toBe(loose.id);
    expectValidationError(await admin('POST', `${W}/${space.id}/link-board`, { boardId: 'brd_UNKNOWN' }), 'boardId');
    expect((await admin('GET', `${W}/board/brd_UNKNOWN`)).status).toBe(404);
  });

  it('limits space creation to 10 per organization and hour (429 with Retry-After and RateLimit), counting nothing refused', async () => {
    const limited = await signupOrg();
    // A refused create (a taken slug) counts nothing.
    await created(limited.call('POST', W, { body: { name: 'Zero', slug: 'zero' } }));
    expect((await limited.call('POST', W, { body: { name: 'Zero again', slug: 'zero' } })).status).toBe(409);
    for (let n = 1; n < 10; n += 1) await created(limited.call('POST', W, { body: { name: `Space ${n}` } }));
    const refused = await limited.call('POST', W, { body: { name: 'Eleventh' } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-policy')).toContain('q=10');
    expect(refused.headers.get('ratelimit')).toContain('r=0');
    expect((await limited.call('GET', W)).body).toHaveLength(10);
  });
});

describe('wiki roles', () => {
  let org: TestOrg;
  let board: any;
  let inherit: any;
  let separate: any;
  const users: Record<string, { id: string; call: Caller }> = {};

  beforeAll(async () => {
    org = await signupOrg();
    const group = async (name: string, permissions: string[]) => (await org.call('POST', '/api/v1/permission-groups', { body: { name, color: '#123456', permissions } })).body.id;
    const groups = {
      viewer: await group('Wiki viewers', ['wiki:view']),
      editor: await group('Wiki editors', ['wiki:view', 'wiki:edit']),
      manager: await group('Wiki managers', ['wiki:manage']),
      nobody: await group('No wiki', ['tickets:create']),
    };
    const customer = (await org.call('POST', '/api/v1/customers', { body: { name: 'Client' } })).body;
    board = (await createBoard(org, { name: 'Docs board', customerIds: [customer.id] }));
    for (const [key, groupId] of Object.entries(groups)) {
      const member = await createMember(org, { name: `Wiki ${key}`, permissionGroupIds: [groupId] });
      users[key] = { id: member.id, call: as(org, member.token) };
      await org.call('POST', `/api/v1/boards/${board.id}/members`, { body: { userId: member.id } });
    }
    const outsider = await createMember(org, { name: 'Wiki outsider', permissionGroupIds: [groups.editor] });
    users.outsider = { id: outsider.id, call: as(org, outsider.token) };
    const client = await createMember(org, { name: 'Wiki customer', role: 'CUSTOMER', customerId: customer.id });
    users.customer = { id: client.id, call: as(org, client.token) };
    users.admin = { id: org.adminId, call: (method, path, body) => org.call(method, path, body !== undefined ? { body } : {}) };

    inherit = (await org.call('POST', `${W}/board/${board.id}`, { body: { name: 'Inherited' } })).body;
    const second = (await createBoard(org, { name: 'Separate board', customerIds: [customer.id] }));
    separate = (await org.call('POST', W, { body: { name: 'Separate', boardId: second.id, memberMode: 'MANAGE_SEPARATE' } })).body;
    for (const [key, role] of [['viewer', 'view'], ['editor', 'edit'], ['manager', 'manage'], ['nobody', 'edit'], ['outsider', 'edit']] as const) {
      const added = await org.call('POST', `${W}/${separate.id}/members`, { body: { userId: users[key]!.id, role } });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    }
    for (const space of [inherit, separate]) {
      await org.call('POST', `${W}/${space.id}/pages`, { body: { title: 'Published', content: 'For everyone', isPublished: true } });
      await org.call('POST', `${W}/${space.id}/pages`, { body: { title: 'Draft', content: 'Internal only' } });
    }
  }, 60_000);

  /** What each caller gets: the role, or 404 when the space is hidden. */
  const expected = {
    INHERIT_BOARD: { admin: 'manage', manager: 'manage', editor: 'edit', viewer: 'view', customer: 'view', nobody: 404, outsider: 404 },
    MANAGE_SEPARATE: { admin: 'manage', manager: 'manage', editor: 'edit', viewer: 'view', customer: 'view', nobody: 404, outsider: 'edit' },
  } as const;

  it.each(['INHERIT_BOARD', 'MANAGE_SEPARATE'] as const)('answers each role what it may do in a %s space', async (mode) => {
    const space = mode === 'INHERIT_BOARD' ? inherit : separate;
    for (const [key, want] of Object.entries(expected[mode])) {
      const call = users[key]!.call;
      const permission = await call('GET', `${W}/${space.id}/permission`);
      const pages = await call('GET', `${W}/${space.id}/pages`);
      const create = await call('POST', `${W}/${space.id}/pages`, { title: `By ${key}` });
      const patch = await call('PATCH', `${W}/${space.id}`, { description: `Touched by ${key}` });
      const listed = (await call('GET', W)).body.map((s: any) => s.id);
      if (want === 404) {
        expect([key, permission.status, pages.status, create.status, patch.status]).toEqual([key, 404, 404, 404, 404]);
        expect(listed).not.toContain(space.id);
        continue;
      }
      expect([key, permission.body.role]).toEqual([key, want]);
      expect(permission.body).toMatchObject({ canView: true, canEdit: want !== 'view', canManage: want === 'manage', publishedOnly: key === 'customer' });
      expect(listed).toContain(space.id);
      const titles = pages.body.data.map((page: any) => page.title);
      expect([key, titles.includes('Draft')]).toEqual([key, key !== 'customer']);
      expect([key, titles.includes('Published')]).toEqual([key, true]);
      expect([key, create.status]).toEqual([key, want === 'view' ? 403 : 201]);
      expect([key, patch.status]).toEqual([key, want === 'manage' ? 200 : 403]);
    }
  });

  it('lists effective members with their role and its source', async () => {
    const inherited = (await users.viewer!.call('GET', `${W}/${inherit.id}/effective-members`)).body;
    const byName = Object.fromEntries(inherited.map((member: any) => [member.name, member]));
    expect(byName['Wiki editor']).toMatchObject({ role: 'edit', source: 'BOARD_MEMBER' });
    expect(byName['Wiki customer']).toMatchObject({ role: 'view', source: 'CUSTOMER', publishedOnly: true });
    expect(byName['Wiki nobody']).toBeUndefined();
    expect(byName['Wiki outsider']).toBeUndefined();
    expect(inherited.some((member: any) => member.source === 'ADMIN')).toBe(true);
    const separated = Object.fromEntries((await users.viewer!.call('GET', `${W}/${separate.id}/effective-members`)).body.map((member: any) => [member.name, member]));
    expect(separated['Wiki outsider']).toMatchObject({ role: 'edit', source: 'SPACE_MEMBER' });
    expect(separated['Wiki nobody']).toBeUndefined();
    const members = (await users.viewer!.call('GET', `${W}/${separate.id}/members`)).body;
    expect(members.find((member: any) => member.userId === users.nobody!.id)).toMatchObject({ role: 'edit' });
  });

  it('lets managers manage the member list, and only them', async () => {
    expect((await users.editor!.call('POST', `${W}/${separate.id}/members`, { userId: users.viewer!.id, role: 'manage' })).status).toBe(403);
    expect((await users.manager!.call('POST', `${W}/${separate.id}/members`, { userId: users.viewer!.id, role: 'edit' })).body.role).toBe('edit');
    expect((await users.viewer!.call('GET', `${W}/${separate.id}/permission`)).body.role).toBe('edit');
    expectValidationError(await users.manager!.call('POST', `${W}/${separate.id}/members`, { userId: users.customer!.id, role: 'view' }), 'userId');
    expect((await users.manager!.call('DELETE', `${W}/${separate.id}/members/${users.viewer!.id}`)).status).toBe(204);
    expect((await users.viewer!.call('GET', `${W}/${separate.id}`)).status).toBe(404);
    expect((await users.manager!.call('DELETE', `${W}/${separate.id}/members/${users.viewer!.id}`)).status).toBe(404);
  });

  it('keeps a manager who switches a space to its own member list on that list', async () => {
    const switching = (await org.call('POST', W, { body: { name: 'Switching', boardId: undefined, memberMode: 'INHERIT_BOARD' } })).body;
    expect((await users.manager!.call('GET', `${W}/${switching.id}/permission`)).body).toMatchObject({ role: 'manage', source: 'ORGANIZATION' });
    expect((await users.manager!.call('PATCH', `${W}/${switching.id}`, { memberMode: 'MANAGE_SEPARATE' })).status).toBe(200);
    expect((await users.manager!.call('GET', `${W}/${switching.id}/permission`)).body).toMatchObject({ role: 'manage', source: 'SPACE_MEMBER' });
    expect((await users.editor!.call('GET', `${W}/${switching.id}`)).status).toBe(404);
  });
});

describe('wiki folders and pages', () => {
  let org: TestOrg;
  let admin: Caller;
  let space: any;
  let base: string;
  beforeAll(async () => {
    org = await signupOrg();
    admin = (method, path, body) => org.call(method, path, body !== undefined ? { body } : {});
    space = await created(admin('POST', W, { name: 'Pages' }));
    base = `${W}/${space.id}`;
  });

  it('nests folders, lists them by parent, refuses cycles, and shows the tree', async () => {
    const guides = await created(admin('POST', `${base}/folders`, { name: 'Guides', order: 2 }));
    const api_ = await created(admin('POST', `${base}/folders`, { name: 'API', order: 1 }));
    const deep = await created(admin('POST', `${base}/folders`, { name: 'Deep', parentId: guides.id }));
    const deeper = await created(admin('POST', `${base}/folders`, { name: 'Deeper', parentId: deep.id }));
    expectValidationError(await admin('POST', `${base}/folders`, { name: 'Orphan', parentId: 'wfd_UNKNOWN' }), 'parentId');
    expect((await admin('GET', `${base}/folders`)).body.map((f: any) => f.name)).toEqual(['API', 'Guides']);
    expect((await admin('GET', `${base}/folders?parentId=${guides.id}`)).body.map((f: any) => f.name)).toEqual(['Deep']);
    expectValidationError(await admin('PATCH', `${base}/folders/${guides.id}`, { parentId: deeper.id }), 'parentId');
    expectValidationError(await admin('PATCH', `${base}/folders/${guides.id}`, { parentId: guides.id }), 'parentId');
    const moved = await admin('PATCH', `${base}/folders/${deep.id}`, { parentId: api_.id, name: 'Deep API' });
    expect(moved.body).toMatchObject({ parentId: api_.id, name: 'Deep API' });
    expect((await admin('PATCH', `${base}/folders/${deep.id}`, { parentId: null })).body.parentId).toBeNull();
    await admin('PATCH', `${base}/folders/${deep.id}`, { parentId: api_.id });
    await created(admin('POST', `${base}/pages`, { title: 'Intro', folderId: deep.id }));
    await created(admin('POST', `${base}/pages`, { title: 'Top page' }));
    const tree = (await admin('GET', `${base}/tree`)).body;
    expect(tree.pages.map((p: any) => p.title)).toEqual(['Top page']);
    expect(tree.folders.map((f: any) => f.name)).toEqual(['API', 'Guides']);
    expect(tree.folders[0].folders[0]).toMatchObject({ name: 'Deep API', pages: [{ title: 'Intro' }], folders: [{ name: 'Deeper' }] });
    expect((await admin('GET', `${base}/folders/${deep.id}`)).body.name).toBe('Deep API');
    expect((await admin('GET', `${base}/folders/wfd_UNKNOWN`)).status).toBe(404);
  });

  it('refuses to delete a non-empty folder without deleteContents, and deletes everything inside with it', async () => {
    const root = await created(admin('POST', `${base}/folders`, { name: 'Doomed' }));
    const child = await created(admin('POST', `${base}/folders`, { name: 'Doomed child', parentId: root.id }));
    const page = await created(admin('POST', `${base}/pages`, { title: 'Doomed page', content: 'bye', folderId: child.id }));
    const refused = await admin('DELETE', `${base}/folders/${root.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'FOLDER_NOT_EMPTY', details: { folders: 1, pages: 1 } });
    expect((await admin('GET', `${base}/pages/${page.id}`)).status).toBe(200);
    expect((await admin('DELETE', `${base}/folders/${root.id}?deleteContents=true`)).status).toBe(204);
    for (const path of [`${base}/folders/${root.id}`, `${base}/folders/${child.id}`, `${base}/pages/${page.id}`]) expect((await admin('GET', path)).status).toBe(404);
    // Its versions and content go in the background.
    const versionsLeft = await waitUntil(async () => (await db().entities.wikiVersion.query.byPage({ orgId: org.orgId, spaceId: space.id, pageId: page.id }).go()).data.length, (n) => n === 0);
    expect(versionsLeft).toBe(0);
    const empty = await created(admin('POST', `${base}/folders`, { name: 'Empty' }));
    expect((await admin('DELETE', `${base}/folders/${empty.id}`)).status).toBe(204);
  });

  it('versions every change of title or content, refuses a stale edit, and restores', async () => {
    const page = await created(admin('POST', `${base}/pages`, { title: 'Runbook', content: 'Step one' }));
    expect(page).toMatchObject({ version: 1, content: 'Step one', isPublished: false, contentLength: 8 });
    const second = await admin('PATCH', `${base}/pages/${page.id}`, { content: 'Step one\nStep two', expectedVersion: 1 });
    expect(second.body).toMatchObject({ version: 2, content: 'Step one\nStep two' });
    const stale = await admin('PATCH', `${base}/pages/${page.id}`, { content: 'Lost edit', expectedVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'STALE_UPDATE', details: { currentVersion: 2 } });
    expect((await admin('PATCH', `${base}/pages/${page.id}`, { title: 'Runbook v2' })).body.version).toBe(3);
    // Publishing changes neither title nor content: no version.
    expect((await admin('PATCH', `${base}/pages/${page.id}`, { isPublished: true })).body).toMatchObject({ version: 3, isPublished: true });
    const versions = (await admin('GET', `${base}/pages/${page.id}/versions`)).body;
    expect(versions.total).toBe(3);
    expect(versions.data.map((v: any) => [v.number, v.title])).toEqual([[3, 'Runbook v2'], [2, 'Runbook'], [1, 'Runbook']]);
    const first = versions.data[2];
    expect((await admin('GET', `${base}/pages/${page.id}/versions/${first.id}`)).body.content).toBe('Step one');
    const restored = await admin('POST', `${base}/pages/${page.id}/versions/${first.id}/restore`);
    expect(restored.body).toMatchObject({ version: 4, title: 'Runbook', content: 'Step one' });
    expect((await admin('GET', `${base}/pages/${page.id}/versions`)).body.data[0]).toMatchObject({ number: 4, restoredFrom: 1 });

    const other = await created(admin('POST', `${base}/pages`, { title: 'Other' }));
    expect((await admin('POST', `${base}/pages/${other.id}/versions/${first.id}/restore`)).status).toBe(404);
    expect((await admin('GET', `${base}/pages/${page.id}`)).body.version).toBe(4);
    expectValidationError(await admin('POST', `${base}/pages`, { title: 't'.repeat(256) }), 'title');
    expectValidationError(await admin('POST', `${base}/pages`, { title: 'Folder?', folderId: 'wfd_UNKNOWN' }), 'folderId');
    expectValidationError(await admin('POST', `${base}/pages`, { title: 'Lone', content: 'a\ud800b' }), 'content');

    expect((await admin('DELETE', `${base}/pages/${other.id}`)).status).toBe(204);
    expect((await admin('GET', `${base}/pages/${other.id}`)).status).toBe(404);
  });

  it('round-trips a 500,000-character page of emoji or CJK text through several versions and a restore', async () => {
    const emoji = `${'😀🚀🧪'.repeat(83_333)}😀`;
    const cjk = '漢字かなカナ'.repeat(83_334).slice(0, 500_000);
    expect(emoji.length).toBe(500_000);
    expect(cjk.length).toBe(500_000);
    // Every character escaped as \uXXXX: 3 MB of JSON.
    const escaped = JSON.stringify({ title: 'Big', content: emoji }).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(escaped.length).toBeGreaterThan(3_000_000);
    const response = await fetch(new URL(`${base}/pages`, inject('baseUrl')), {
      method: 'POST',
      headers: { authorization: `Bearer ${org.adminToken}`, 'x-organization': org.slug, 'content-type': 'application/json' },
      body: escaped,
    });
    expect(response.status).toBe(201);
    const big = (await response.json()) as any;
    expect(big.contentLength).toBe(500_000);
    expect((await admin('GET', `${base}/pages/${big.id}`)).body.content).toBe(emoji);
    expect((await admin('PATCH', `${base}/pages/${big.id}`, { content: cjk })).body.version).toBe(2);
    expect((await admin('GET', `${base}/pages/${big.id}`)).body.content).toBe(cjk);
    const edited = `${cjk.slice(0, 499_990)}最後`;
    expect((await admin('PATCH', `${base}/pages/${big.id}`, { content: edited })).body.version).toBe(3);
    const versions = (await admin('GET', `${base}/pages/${big.id}/versions`)).body.data;
    const restored = await admin('POST', `${base}/pages/${big.id}/versions/${versions[2].id}/restore`);
    expect(restored.body.version).toBe(4);
    expect((await admin('GET', `${base}/pages/${big.id}`)).body.content).toBe(emoji);
    expect((await admin('GET', `${base}/pages/${big.id}/versions/${versions[1].id}`)).body.content).toBe(cjk);
    // Each stored chunk stays far below DynamoDB's 400 KB.
    const chunks = (await db().entities.wikiChunk.query.byVersion({ orgId: org.orgId, spaceId: space.id, pageId: big.id }).go({ pages: 'all' })).data;
    expect(Math.max(...chunks.map((chunk) => Buffer.byteLength(chunk.text)))).toBeLessThanOrEqual(300_000);

    expectValidationError(await admin('POST', `${base}/pages`, { title: 'Too long', content: 'x'.repeat(500_001) }), 'content');
    const huge = await fetch(new URL(`${base}/pages`, inject('baseUrl')), {
      method: 'POST',
      headers: { authorization: `Bearer ${org.adminToken}`, 'x-organization': org.slug, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Huge', content: 'x'.repeat(3_200_000) }),
    });
    expect(huge.status).toBe(413);
  }, 60_000);

  it('searches titles and content in a space and across spaces, with snippets', async () => {
    await created(admin('POST', `${base}/pages`, { title: 'Deploy guide', content: `${'Intro text. '.repeat(20)}Run the CANARY rollout first, then watch the dashboards.` }));
    await created(admin('POST', `${base}/pages`, { title: 'Canary checklist', content: 'Short.' }));
    const inSpace = (await admin('GET', `${base}/pages?search=canary`)).body;
    expect(inSpace.data.map((p: any) => p.title)).toEqual(['Canary checklist', 'Deploy guide']);
    const deploy = inSpace.data[1];
    expect(deploy.snippet).toContain('CANARY rollout');
    expect(deploy.snippet.length).toBeLessThanOrEqual(2 * 80 + 10);
    expect(deploy.snippet.startsWith('…')).toBe(true);
    const other = await created(admin('POST', W, { name: 'Other space' }));
    await created(admin('POST', `${W}/${other.id}/pages`, { title: 'Elsewhere', content: 'canary in another space' }));
    const everywhere = (await admin('GET', '/api/v1/wiki/search?q=CANARY')).body;
    expect(everywhere.total).toBe(3);
    expect(everywhere.data.map((hit: any) => hit.space.name).sort()).toEqual(['Other space', 'Pages', 'Pages']);
    expect(JSON.stringify(everywhere)).not.toContain('Intro text. Intro text. Intro text. Intro text. Intro text. Intro text. Intro text.');
  });

  it('limits page creation to 60 per organization and hour, counting nothing refused', async () => {
    const limited = await signupOrg();
    const own = await created(limited.call('POST', W, { body: { name: 'Busy' } }));
    const pages = `${W}/${own.id}/pages`;
    // Refused creates (an unknown folder) count nothing.
    for (let n = 0; n < 3; n += 1) expect((await limited.call('POST', pages, { body: { title: 'Nowhere', folderId: 'wfd_UNKNOWN' } })).status).toBe(400);
    for (let n = 0; n < 60; n += 4) await Promise.all([0, 1, 2, 3].map((k) => created(limited.call('POST', pages, { body: { title: `Page ${n + k}` } }))));
    const refused = await limited.call('POST', pages, { body: { title: 'Sixty-first' } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-policy')).toContain('q=60');
    expect((await limited.call('GET', `${pages}?limit=100`)).body.total).toBe(60);
  }, 60_000);

  it('purges in runs of bounded size, each handing the rest to a new record', async () => {
    const purged = await created(admin('POST', W, { name: 'Purged in runs' }));
    for (let n = 0; n < 3; n += 1) await created(admin('POST', `${W}/${purged.id}/pages`, { title: `P${n}`, content: `text ${n}` }));
    const scope = { orgId: org.orgId, spaceId: purged.id };
    const left = async () => {
      const counts = await Promise.all([db().entities.wikiPage.query.bySpace(scope).go(), db().entities.wikiVersion.query.byPage(scope).go(), db().entities.wikiChunk.query.byVersion(scope).go()]);
      return counts.reduce((sum, result) => sum + result.data.length, 0);
    };
    expect(await left()).toBe(9);
    // One run of at most 4 items, as the stream consumer would make it: the rest follows through a new outbox record.
    await purgeWiki({ eventId: 'evt_test', orgId: org.orgId, subjectId: purged.id, type: WIKI_PURGE_JOB.name, occurredAt: new Date().toISOString(), data: { spaceId: purged.id } }, systemClock, 4);
    expect(await left()).toBeLessThanOrEqual(5);
    expect(await waitUntil(left, (n) => n === 0)).toBe(0);
  });

  it('deletes a space at once and its contents in the background', async () => {
    const doomed = await created(admin('POST', W, { name: 'Doomed space' }));
    const folder = await created(admin('POST', `${W}/${doomed.id}/folders`, { name: 'F' }));
    const page = await created(admin('POST', `${W}/${doomed.id}/pages`, { title: 'P', content: 'text', folderId: folder.id }));
    await admin('PATCH', `${W}/${doomed.id}/pages/${page.id}`, { content: 'more text' });
    expect((await admin('DELETE', `${W}/${doomed.id}`)).status).toBe(204);
    expect((await admin('GET', `${W}/${doomed.id}`)).status).toBe(404);
    expect((await admin('GET', `${W}/${doomed.id}/pages/${page.id}`)).status).toBe(404);
    expect((await admin('GET', W)).body.map((s: any) => s.id)).not.toContain(doomed.id);
    // The slug is free at once.
    expect((await created(admin('POST', W, { name: 'Doomed space' }))).slug).toBe('doomed-space');
    const left = async () => {
      const scope = { orgId: org.orgId, spaceId: doomed.id };
      const counts = await Promise.all([
        db().entities.wikiFolder.query.bySpace(scope).go(),
        db().entities.wikiPage.query.bySpace(scope).go(),
        db().entities.wikiVersion.query.byPage(scope).go(),
        db().entities.wikiChunk.query.byVersion(scope).go(),
      ]);
      return counts.reduce((sum, result) => sum + result.data.length, 0);
    };
    expect(await waitUntil(left, (n) => n === 0)).toBe(0);
  });
});
