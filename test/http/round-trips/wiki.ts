import { signupOrg } from '../../support/api.js';
import type { OrgFixture } from '../../support/fixtures.js';
import { call, post, suffix, type Probe } from '../../support/round-trips.js';

export function wikiProbes(): Record<string, Probe> {
  const w = '/api/v1/wiki/spaces';
  const s = `${w}/{spaceId}`;
  const space = async (org: OrgFixture, body: Record<string, unknown> = {}) => (await post(org, w, { name: `Budget ${suffix()}`, ...body })).id as string;
  const board = async (org: OrgFixture) => (await post(org, '/api/v1/boards', { name: `Wiki ${suffix()}` })).id as string;
  const page = async (org: OrgFixture) => (await post(org, `${w}/${org.spaceId}/pages`, { title: `Budget ${suffix()}`, content: 'text' })).id as string;
  return {
    // auth; the spaces Query ∥ the boards Query (who may see which).
    [`GET ${w}`]: { budget: 3, run: call(`GET ${w}`) },
    // auth; one transaction (space, slug guard, hourly count); the count read back (for RateLimit).
    [`POST ${w}`]: { budget: 3, run: (org) => org.call('POST', w, { body: { name: `Budget ${suffix()}` } }) },
    // In an organization of one space and a page just written (not yet indexed): auth; spaces ∥ boards ∥ the pending
    // markers; the word's entries (one Query per word and space); the matching and pending pages (one BatchGetItem);
    // the pending page's content (one BatchGetItem), which also gives its snippet.
    'GET /api/v1/wiki/search': {
      budget: 7,
      run: async () => {
        const fresh = await signupOrg();
        const only = (await fresh.call('POST', w, { body: { name: 'Searched' } })).body.id;
        await fresh.call('POST', `${w}/${only}/pages`, { body: { title: 'Needle', content: 'a needle here' } });
        return fresh.call('GET', '/api/v1/wiki/search?q=needle');
      },
    },
    // auth; the board and its link guard (one BatchGetItem); the space.
    [`GET ${w}/board/{boardId}`]: { budget: 3, run: call(`GET ${w}/board/{boardId}`) },
    // auth; the board and its link guard; the board again (consistent, before the link); one transaction; the count read back.
    [`POST ${w}/board/{boardId}`]: { budget: 5, run: async (org) => org.call('POST', `${w}/board/${await board(org)}`, { body: { name: `Budget ${suffix()}` } }) },
    // auth; the space (an administrator's access needs no board).
    [`GET ${s}`]: { budget: 2, run: call(`GET ${s}`) },
    // auth; the space; one guarded put.
    [`PATCH ${s}`]: { budget: 3, run: call(`PATCH ${s}`, { description: 'Changed' }) },
    // auth; the space; one transaction (space, guards, purge record).
    [`DELETE ${s}`]: { budget: 3, run: async (org) => org.call('DELETE', `${w}/${await space(org)}`) },
    // auth; the space ∥ its folders ∥ its pages.
    [`GET ${s}/tree`]: { budget: 4, run: call(`GET ${s}/tree`) },
    // auth; the space.
    [`GET ${s}/permission`]: { budget: 2, run: call(`GET ${s}/permission`) },
    // auth; the space, then its board ∥ the organization's users.
    [`GET ${s}/effective-members`]: { budget: 4, run: call(`GET ${s}/effective-members`) },
    // auth; the space; the board (consistent); one transaction.
    [`POST ${s}/link-board`]: {
      budget: 4,
      run: async (org) => org.call('POST', `${w}/${await space(org)}/link-board`, { body: { boardId: await board(org) } }),
    },
    // auth; the space; one transaction.
    [`POST ${s}/unlink-board`]: { budget: 3, run: async (org) => org.call('POST', `${w}/${await space(org, { boardId: await board(org) })}/unlink-board`) },
    // auth; the space ∥ the organization's users.
    [`GET ${s}/members`]: { budget: 3, run: call(`GET ${s}/members`) },
    // auth; the space ∥ the user; one guarded put.
    [`POST ${s}/members`]: { budget: 4, run: (org) => org.call('POST', `${w}/${org.spaceId}/members`, { body: { userId: org.memberId, role: 'edit' } }) },
    // auth; the space; one guarded put.
    [`DELETE ${s}/members/{userId}`]: {
      budget: 3,
      run: async (org) => {
        await org.call('POST', `${w}/${org.spaceId}/members`, { body: { userId: org.memberId, role: 'view' } });
        return org.call('DELETE', `${w}/${org.spaceId}/members/${org.memberId}`);
      },
    },
    // auth; the space ∥ its pages.
    [`GET ${s}/pages`]: { budget: 3, run: call(`GET ${s}/pages`) },
    // auth; the space; one transaction (page, version, content, hourly count, checks); the count read back.
    [`POST ${s}/pages`]: { budget: 4, run: (org) => org.call('POST', `${w}/${org.spaceId}/pages`, { body: { title: `Budget ${suffix()}`, content: 'Body' } }) },
    // auth; the space and the page (one BatchGetItem); its content (one Query).
    [`GET ${s}/pages/{pageId}`]: { budget: 3, run: call(`GET ${s}/pages/{pageId}`) },
    // auth; space and page; one transaction (a new content of another length needs no read of the old).
    [`PATCH ${s}/pages/{pageId}`]: { budget: 3, run: async (org) => org.call('PATCH', `${w}/${org.spaceId}/pages/${await page(org)}`, { body: { content: `Changed ${suffix()}!` } }) },
    // auth; space and page; one transaction (the page, its purge record).
    [`DELETE ${s}/pages/{pageId}`]: { budget: 3, run: async (org) => org.call('DELETE', `${w}/${org.spaceId}/pages/${await page(org)}`) },
    // auth; space and page; its versions.
    [`GET ${s}/pages/{pageId}/versions`]: { budget: 3, run: call(`GET ${s}/pages/{pageId}/versions`) },
    // auth; space and page; its versions; the version's content.
    [`GET ${s}/pages/{pageId}/versions/{versionId}`]: { budget: 4, run: call(`GET ${s}/pages/{pageId}/versions/{versionId}`) },
    // auth; space and page; its versions; the version's content; one transaction.
    [`POST ${s}/pages/{pageId}/versions/{versionId}/restore`]: { budget: 5, run: call(`POST ${s}/pages/{pageId}/versions/{versionId}/restore`) },
    // auth; the space ∥ its folders.
    [`GET ${s}/folders`]: { budget: 3, run: call(`GET ${s}/folders`) },
    // auth; the space ∥ its folders; one transaction (folder, the parents' chain, the space).
    [`POST ${s}/folders`]: { budget: 4, run: (org) => org.call('POST', `${w}/${org.spaceId}/folders`, { body: { name: `Budget ${suffix()}` } }) },
    // auth; the space and the folder (one BatchGetItem).
    [`GET ${s}/folders/{folderId}`]: { budget: 2, run: call(`GET ${s}/folders/{folderId}`) },
    // auth; the space ∥ its folders; one transaction.
    [`PATCH ${s}/folders/{folderId}`]: { budget: 4, run: call(`PATCH ${s}/folders/{folderId}`, { order: 3 }) },
    // auth; the space ∥ its folders ∥ its pages; one transaction.
    [`DELETE ${s}/folders/{folderId}`]: {
      budget: 5,
      run: async (org) => org.call('DELETE', `${w}/${org.spaceId}/folders/${(await post(org, `${w}/${org.spaceId}/folders`, { name: `Doomed ${suffix()}` })).id}`),
    },
  };
}
