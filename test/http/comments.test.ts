import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, createToken, expectValidationError, signupOrg, type TestOrg, useInProcess } from '../support/api.js';
import { dispatchedEventsOf } from '../support/events.js';
import { createTicket, createMemberWith } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

interface Setup {
  org: TestOrg;
  boardId: string;
  customerId: string;
  /** A TEAM_MEMBER (Members group) added to the board directly. */
  member: { id: string; token: string };
}

const unique = () => Math.random().toString(36).slice(2, 8);

async function setup(): Promise<Setup> {
  const org = await signupOrg();
  const customer = await org.call('POST', '/api/v1/customers', { body: { name: `Customer ${unique()}` } });
  const board = await org.call('POST', '/api/v1/boards', { body: { name: 'Comments board', prefix: 'CMT', customerIds: [customer.body.id] } });
  const member = await createMember(org, { name: 'Mia Member' });
  await org.call('POST', `/api/v1/boards/${board.body.id}/members`, { body: { userId: member.id } });
  return { org, boardId: board.body.id, customerId: customer.body.id, member };
}

const commentsPath = (s: Setup, ticketId: string) => `/api/v1/boards/${s.boardId}/tickets/${ticketId}/comments`;

/** Calls as the given user (or the administrator when no token is given). */
const caller = (s: Setup, token: string | undefined) => (method: string, path: string, body?: unknown) =>
  token ? api(method, path, { token, org: s.org.slug, body }) : s.org.call(method, path, { body });

async function newComment(s: Setup, ticketId: string, body: Record<string, unknown> = {}, token?: string) {
  const response = await caller(s, token)('POST', commentsPath(s, ticketId), { content: 'A comment', ...body });
  if (response.status !== 201) throw new Error(`create comment: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

const commentCountOf = async (s: Setup, ticketId: string): Promise<number> =>
  (await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticketId}`)).body.data.commentCount;

describe('posting comments', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('creates a comment with the author, a null parent and timestamps, in one transaction after one read', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;

    const response = await api('POST', commentsPath(s, ticketId), { token: s.member.token, org: s.org.slug, body: { content: 'Looks good to me' } });

    expect(response.status).toBe(201);
    expect(response.body.data).toEqual({
      id: expect.stringMatching(/^cmt_/),
      content: 'Looks good to me',
      isSecret: false,
      author: { id: s.member.id, name: 'Mia Member' },
      parentId: null,
      createdAt: expect.any(String),
      updatedAt: response.body.data.createdAt,
    });
  });

  it('counts the comments on the full ticket, and later ticket edits keep the count', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    expect(await commentCountOf(s, ticketId)).toBe(0);

    await newComment(s, ticketId);
    await newComment(s, ticketId, { isSecret: true });

    expect(await commentCountOf(s, ticketId)).toBe(2);
    await s.org.call('PATCH', `/api/v1/boards/${s.boardId}/tickets/${ticketId}`, { body: { title: 'Renamed' } });
    expect(await commentCountOf(s, ticketId)).toBe(2);
  });

  it('keeps content as written and accepts exactly 10,000 characters', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const indented = await newComment(s, ticketId, { content: '    code block\n' });
    const longest = await newComment(s, ticketId, { content: 'x'.repeat(10_000) });

    expect(indented.content).toBe('    code block\n');
    expect(longest.content).toHaveLength(10_000);
  });

  it.each([
    ['empty content', { content: '' }, 'content'],
    ['blank content', { content: '   \n ' }, 'content'],
    ['content of 10,001 characters', { content: 'x'.repeat(10_001) }, 'content'],
    ['missing content', {}, 'content'],
    ['content that is not a string', { content: 42 }, 'content'],
    ['isSecret that is not a boolean', { content: 'x', isSecret: 'yes' }, 'isSecret'],
    ['an unknown field', { content: 'x', mood: 'happy' }, 'mood'],
  ])('rejects %s with 400 naming the field and writes nothing', async (_case, body, field) => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;

    const response = await s.org.call('POST', commentsPath(s, ticketId), { body });

    expectValidationError(response, field);
    expect((await s.org.call('GET', commentsPath(s, ticketId))).body.total).toBe(0);
    expect(await commentCountOf(s, ticketId)).toBe(0);
  });

  it('threads replies, including replies to replies', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const root = await newComment(s, ticketId, { content: 'Question?' });

    const reply = await newComment(s, ticketId, { content: 'Answer.', parentId: root.id }, s.member.token);
    const replyToReply = await newComment(s, ticketId, { content: 'Thanks!', parentId: reply.id });

    expect(reply.parentId).toBe(root.id);
    expect(replyToReply.parentId).toBe(reply.id);
    const listed = await s.org.call('GET', commentsPath(s, ticketId));
    expect(listed.body.data.map((comment: any) => [comment.id, comment.parentId])).toEqual([
      [root.id, null],
      [reply.id, root.id],
      [replyToReply.id, reply.id],
    ]);
  });

  it('rejects a parent that is unknown or belongs to another ticket with 400 naming parentId, writing nothing', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const otherTicketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const elsewhere = await newComment(s, otherTicketId);

    const unknown = await s.org.call('POST', commentsPath(s, ticketId), { body: { content: 'x', parentId: 'cmt_unknown' } });
    const foreign = await s.org.call('POST', commentsPath(s, ticketId), { body: { content: 'x', parentId: elsewhere.id } });

    expectValidationError(unknown, 'parentId');
    expectValidationError(foreign, 'parentId');
    expect((await s.org.call('GET', commentsPath(s, ticketId))).body.total).toBe(0);
    expect(await commentCountOf(s, ticketId)).toBe(0);
  });

  it('emits comment.created with ids and the secret flag only, never the content', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;

    const comment = await newComment(s, ticketId, { content: 'Confidential details', isSecret: true }, s.member.token);

    const events = await dispatchedEventsOf(s.org.orgId, ticketId, 2);
    const created = events.filter((event) => event.type === 'comment.created');
    expect(created).toHaveLength(1);
    expect(created[0]!.data).toEqual({
      ticketId,
      boardId: s.boardId,
      projectId: s.boardId,
      organizationId: s.org.orgId,
      claimCount: 0,
      commentId: comment.id,
      authorId: s.member.id,
      isSecret: true,
    });
    expect(JSON.stringify(created[0])).not.toContain('Confidential');
  });

  it('lets a member without tickets:create but with tickets:edit comment', async () => {
    const editor = await createMemberWith(s.org, ['tickets:edit'], { name: `Limited ${unique()}`, boardIds: [s.boardId] });
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;

    const response = await api('POST', commentsPath(s, ticketId), { token: editor.token, org: s.org.slug, body: { content: 'Editor here' } });

    expect(response.status).toBe(201);
  });

  it('refuses a member with neither tickets:create nor tickets:edit with 403 and writes nothing', async () => {
    const reader = await createMemberWith(s.org, [], { name: `Limited ${unique()}`, boardIds: [s.boardId] });
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;

    const response = await api('POST', commentsPath(s, ticketId), { token: reader.token, org: s.org.slug, body: { content: 'Hello' } });

    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect(await commentCountOf(s, ticketId)).toBe(0);
  });
});

describe('secret comments', () => {
  let s: Setup;
  let customerUser: { id: string; token: string };
  let ticketId: string;
  let publicComment: any;
  let secretComment: any;
  beforeAll(async () => {
    s = await setup();
    customerUser = await createMember(s.org, { role: 'CUSTOMER', customerId: s.customerId, name: 'Cora Customer' });
    ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    publicComment = await newComment(s, ticketId, { content: 'Visible to all' });
    secretComment = await newComment(s, ticketId, { content: 'Internal only', isSecret: true }, s.member.token);
  });

  it('lets a member holding tickets:add-secret-comments post one', () => {
    expect(secretComment).toMatchObject({ isSecret: true, author: { id: s.member.id } });
  });

  it('refuses a secret comment from a member without tickets:add-secret-comments with 403', async () => {
    const commenter = await createMemberWith(s.org, ['tickets:create'], { name: `Limited ${unique()}`, boardIds: [s.boardId] });

    const response = await api('POST', commentsPath(s, ticketId), { token: commenter.token, org: s.org.slug, body: { content: 'Psst', isSecret: true } });
    const publicOne = await api('POST', commentsPath(s, ticketId), { token: commenter.token, org: s.org.slug, body: { content: 'Hello', isSecret: false } });

    expect(response.status).toBe(403);
    expect(response.body.error.details).toEqual({ permission: 'tickets:add-secret-comments' });
    expect(publicOne.status).toBe(201);
    await s.org.call('DELETE', `${commentsPath(s, ticketId)}/${publicOne.body.data.id}`);
  });

  it('shows internal users every comment, secret ones included', async () => {
    const response = await api('GET', commentsPath(s, ticketId), { token: s.member.token, org: s.org.slug });

    expect(response.body.data.map((comment: any) => comment.id)).toEqual([publicComment.id, secretComment.id]);
    expect(response.body.total).toBe(2);
  });

  it('leaves secret comments out of a customer user’s list and its total', async () => {
    const response = await api('GET', commentsPath(s, ticketId), { token: customerUser.token, org: s.org.slug });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [publicComment], total: 1, page: 1, pageSize: 20, totalPages: 1 });
  });

  it('answers a customer user’s read, edit or delete of a secret comment with 404', async () => {
    const path = `${commentsPath(s, ticketId)}/${secretComment.id}`;
    const call = caller(s, customerUser.token);

    const read = await call('GET', path);
    const edit = await call('PATCH', path, { content: 'Changed' });
    const remove = await call('DELETE', path);

    expect([read.status, edit.status, remove.status]).toEqual([404, 404, 404]);
    expect((await s.org.call('GET', path)).body.data.content).toBe('Internal only');
  });

  it('lets a customer user post a public comment and read it back', async () => {
    const comment = await newComment(s, ticketId, { content: 'From the customer' }, customerUser.token);

    const read = await api('GET', `${commentsPath(s, ticketId)}/${comment.id}`, { token: customerUser.token, org: s.org.slug });

    expect(read.body.data).toMatchObject({ content: 'From the customer', author: { id: customerUser.id, name: 'Cora Customer' }, isSecret: false });
    await s.org.call('DELETE', `${commentsPath(s, ticketId)}/${comment.id}`);
  });

  it('never lets a customer user post a secret comment, nor reply to one', async () => {
    const secret = await api('POST', commentsPath(s, ticketId), { token: customerUser.token, org: s.org.slug, body: { content: 'Psst', isSecret: true } });
    const reply = await api('POST', commentsPath(s, ticketId), { token: customerUser.token, org: s.org.slug, body: { content: 'Re', parentId: secretComment.id } });

    expect(secret.status).toBe(403);
    expectValidationError(reply, 'parentId');
  });

  it('counts secret comments in the full ticket’s commentCount for people, never for customer users', async () => {
    const path = `/api/v1/boards/${s.boardId}/tickets/${ticketId}`;
    const asCustomer = await api('GET', path, { token: customerUser.token, org: s.org.slug });
    const asAdmin = await s.org.call('GET', path);

    expect(asAdmin.body.data.commentCount).toBe(2);
    expect(asCustomer.body.data.commentCount).toBe(1);
  });

  it('keeps both counts exact when a secret comment is deleted', async () => {
    const path = `/api/v1/boards/${s.boardId}/tickets/${ticketId}`;
    const extra = await s.org.call('POST', commentsPath(s, ticketId), { body: { content: 'Internal only', isSecret: true } });
    expect(extra.status).toBe(201);
    expect((await s.org.call('GET', path)).body.data.commentCount).toBe(3);
    expect((await api('GET', path, { token: customerUser.token, org: s.org.slug })).body.data.commentCount).toBe(1);
    expect((await s.org.call('DELETE', `${commentsPath(s, ticketId)}/${extra.body.data.id}`)).status).toBe(204);
    expect((await s.org.call('GET', path)).body.data.commentCount).toBe(2);
    expect((await api('GET', path, { token: customerUser.token, org: s.org.slug })).body.data.commentCount).toBe(1);
  });

  it('keeps a reply to a secret comment secret, so customer users never learn the secret comment exists', async () => {
    const path = `/api/v1/boards/${s.boardId}/tickets/${ticketId}`;
    const countForCustomer = (await api('GET', path, { token: customerUser.token, org: s.org.slug })).body.data.commentCount;
    const reply = await s.org.call('POST', commentsPath(s, ticketId), { body: { content: 'Agreed', parentId: secretComment.id } });
    const insisting = await s.org.call('POST', commentsPath(s, ticketId), { body: { content: 'Public?', parentId: secretComment.id, isSecret: false } });
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({ isSecret: true, parentId: secretComment.id });
    expect(insisting.body.data.isSecret).toBe(true);

    const asCustomer = await api('GET', `${commentsPath(s, ticketId)}?limit=100`, { token: customerUser.token, org: s.org.slug });
    expect(asCustomer.body.data.map((comment: any) => comment.parentId)).not.toContain(secretComment.id);
    expect(JSON.stringify(asCustomer.body)).not.toContain(secretComment.id);
    expect((await api('GET', `${commentsPath(s, ticketId)}/${reply.body.data.id}`, { token: customerUser.token, org: s.org.slug })).status).toBe(404);
    expect((await api('GET', path, { token: customerUser.token, org: s.org.slug })).body.data.commentCount).toBe(countForCustomer);
    // A reply to a public comment stays public.
    const open = await s.org.call('POST', commentsPath(s, ticketId), { body: { content: 'Thanks', parentId: publicComment.id } });
    expect(open.body.data.isSecret).toBe(false);
  });
});

describe('listing and reading comments', () => {
  let s: Setup;
  let ticketId: string;
  let comments: any[];
  beforeAll(async () => {
    s = await setup();
    ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    comments = [];
    for (let index = 0; index < 5; index += 1) comments.push(await newComment(s, ticketId, { content: `Comment ${index}` }));
  });

  it('lists the comments oldest first with an exact total, reading the ticket and the comments in parallel', async () => {
    const response = await s.org.call('GET', commentsPath(s, ticketId));

    expect(response.status).toBe(200);
    expect(response.body.data.map((comment: any) => comment.content)).toEqual(['Comment 0', 'Comment 1', 'Comment 2', 'Comment 3', 'Comment 4']);
    expect(response.body).toMatchObject({ total: 5, page: 1, pageSize: 20, totalPages: 1 });
  });

  it('pages through the comments', async () => {
    const response = await s.org.call('GET', `${commentsPath(s, ticketId)}?page=2&limit=2`);

    expect(response.body.data.map((comment: any) => comment.id)).toEqual([comments[2].id, comments[3].id]);
    expect(response.body).toMatchObject({ total: 5, page: 2, pageSize: 2, totalPages: 3 });
  });

  it('clamps the limit to 100', async () => {
    const response = await s.org.call('GET', `${commentsPath(s, ticketId)}?limit=1000`);

    expect(response.body.pageSize).toBe(100);
  });

  it.each([
    ['page=0', 'page'],
    ['page=x', 'page'],
    ['sort=asc', 'sort'],
  ])('rejects the query %s with 400 naming the parameter', async (query, field) => {
    expectValidationError(await s.org.call('GET', `${commentsPath(s, ticketId)}?${query}`), field);
  });

  it('reads one comment in one round trip after authentication', async () => {
    const response = await s.org.call('GET', `${commentsPath(s, ticketId)}/${comments[1].id}`);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: comments[1] });
  });

  it('answers an unknown comment, and a comment read through another ticket, with 404', async () => {
    const otherTicketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;

    const unknown = await s.org.call('GET', `${commentsPath(s, ticketId)}/cmt_unknown`);
    const wrongTicket = await s.org.call('GET', `${commentsPath(s, otherTicketId)}/${comments[0].id}`);

    expect([unknown.status, wrongTicket.status]).toEqual([404, 404]);
  });
});

describe('editing comments', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('lets the author change the content and moves updatedAt, in three round trips', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const comment = await newComment(s, ticketId, { content: 'Frist' }, s.member.token);
    await new Promise((resolve) => setTimeout(resolve, 5));

    const response = await api('PATCH', `${commentsPath(s, ticketId)}/${comment.id}`, { token: s.member.token, org: s.org.slug, body: { content: 'First' } });

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: comment.id, content: 'First', createdAt: comment.createdAt, author: comment.author });
    expect(response.body.data.updatedAt > comment.updatedAt).toBe(true);
    expect((await s.org.call('GET', `${commentsPath(s, ticketId)}/${comment.id}`)).body.data).toEqual(response.body.data);
  });

  it("lets a holder of tickets:edit change someone else's comment", async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const comment = await newComment(s, ticketId, {}, s.member.token);

    const response = await s.org.call('PATCH', `${commentsPath(s, ticketId)}/${comment.id}`, { body: { content: 'Moderated' } });

    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ content: 'Moderated', author: { id: s.member.id } });
  });

  it("refuses someone else's comment to a member without tickets:edit with 403, but lets them edit their own", async () => {
    const commenter = await createMemberWith(s.org, ['tickets:create'], { name: `Limited ${unique()}`, boardIds: [s.boardId] });
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const others = await newComment(s, ticketId, { content: 'Admin wrote this' });
    const own = await newComment(s, ticketId, { content: 'Mine' }, commenter.token);

    const refused = await api('PATCH', `${commentsPath(s, ticketId)}/${others.id}`, { token: commenter.token, org: s.org.slug, body: { content: 'Hijacked' } });
    const allowed = await api('PATCH', `${commentsPath(s, ticketId)}/${own.id}`, { token: commenter.token, org: s.org.slug, body: { content: 'Mine, edited' } });

    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({ permission: 'tickets:edit' });
    expect((await s.org.call('GET', `${commentsPath(s, ticketId)}/${others.id}`)).body.data.content).toBe('Admin wrote this');
    expect(allowed.status).toBe(200);
  });

  it.each([
    ['empty content', { content: '' }, 'content'],
    ['content of 10,001 characters', { content: 'x'.repeat(10_001) }, 'content'],
    ['missing content', {}, 'content'],
    ['a field that cannot be edited', { content: 'x', isSecret: true }, 'isSecret'],
  ])('rejects %s with 400 naming the field', async (_case, body, field) => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const comment = await newComment(s, ticketId, { content: 'Unchanged' });

    const response = await s.org.call('PATCH', `${commentsPath(s, ticketId)}/${comment.id}`, { body });

    expectValidationError(response, field);
    expect((await s.org.call('GET', `${commentsPath(s, ticketId)}/${comment.id}`)).body.data).toEqual(comment);
  });

  it('answers an unknown comment with 404', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;

    const response = await s.org.call('PATCH', `${commentsPath(s, ticketId)}/cmt_unknown`, { body: { content: 'x' } });

    expect(response.status).toBe(404);
  });
});

describe('deleting comments', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it('lets the author delete a comment and lowers the ticket’s commentCount, in three round trips', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const comment = await newComment(s, ticketId, {}, s.member.token);
    await newComment(s, ticketId);

    const response = await api('DELETE', `${commentsPath(s, ticketId)}/${comment.id}`, { token: s.member.token, org: s.org.slug });

    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect((await s.org.call('GET', `${commentsPath(s, ticketId)}/${comment.id}`)).status).toBe(404);
    expect(await commentCountOf(s, ticketId)).toBe(1);
  });

  it("refuses someone else's comment to a member without tickets:delete with 403, and lets a holder delete it", async () => {
    const commenter = await createMemberWith(s.org, ['tickets:create', 'tickets:edit'], { name: `Limited ${unique()}`, boardIds: [s.boardId] });
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const comment = await newComment(s, ticketId, {}, s.member.token);

    const refused = await api('DELETE', `${commentsPath(s, ticketId)}/${comment.id}`, { token: commenter.token, org: s.org.slug });
    const allowed = await s.org.call('DELETE', `${commentsPath(s, ticketId)}/${comment.id}`);

    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({ permission: 'tickets:delete' });
    expect(allowed.status).toBe(204);
    expect(await commentCountOf(s, ticketId)).toBe(0);
  });

  it('keeps the replies of a deleted comment', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const root = await newComment(s, ticketId, { content: 'Root' });
    const reply = await newComment(s, ticketId, { content: 'Reply', parentId: root.id });

    await s.org.call('DELETE', `${commentsPath(s, ticketId)}/${root.id}`);

    const listed = await s.org.call('GET', commentsPath(s, ticketId));
    expect(listed.body.data).toEqual([reply]);
    expect(await commentCountOf(s, ticketId)).toBe(1);
  });

  it('answers a second delete of the same comment with 404 and leaves the count alone', async () => {
    const ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const comment = await newComment(s, ticketId);
    await s.org.call('DELETE', `${commentsPath(s, ticketId)}/${comment.id}`);

    const again = await s.org.call('DELETE', `${commentsPath(s, ticketId)}/${comment.id}`);

    expect(again.status).toBe(404);
    expect(await commentCountOf(s, ticketId)).toBe(0);
  });
});

describe('comment access', () => {
  let s: Setup;
  let ticketId: string;
  let comment: any;
  beforeAll(async () => {
    s = await setup();
    ticketId = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    comment = await newComment(s, ticketId);
  });

  const everyRoute = (path: string, commentId: string): [string, string, unknown][] => [
    ['GET', path, undefined],
    ['POST', path, { content: 'x' }],
    ['GET', `${path}/${commentId}`, undefined],
    ['PATCH', `${path}/${commentId}`, { content: 'x' }],
    ['DELETE', `${path}/${commentId}`, undefined],
  ];

  it('answers every comment route of a deleted ticket with 404', async () => {
    const doomed = (await createTicket(s.org, s.boardId, { title: 'Commented ticket' })).id;
    const doomedComment = await newComment(s, doomed);
    await s.org.call('DELETE', `/api/v1/boards/${s.boardId}/tickets/${doomed}`);

    for (const [method, path, body] of everyRoute(commentsPath(s, doomed), doomedComment.id)) {
      const response = await s.org.call(method, path, { body });
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
  });

  it("answers every comment route with another organization's board, ticket or comment ids with 404", async () => {
    const other = await setup();
    const foreignTicket = (await createTicket(other.org, other.boardId, { title: 'Commented ticket' })).id;
    const foreignComment = await newComment(other, foreignTicket);

    const paths = [
      ...everyRoute(commentsPath(other, foreignTicket), foreignComment.id),
      // Our board, their ticket; our ticket, their comment.
      ...everyRoute(commentsPath(s, foreignTicket), foreignComment.id),
      ['GET', `${commentsPath(s, ticketId)}/${foreignComment.id}`, undefined] as [string, string, unknown],
    ];
    for (const [method, path, body] of paths) {
      const response = await s.org.call(method, path, { body });
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
    expect((await other.org.call('GET', `${commentsPath(other, foreignTicket)}/${foreignComment.id}`)).status).toBe(200);
  });

  it('answers a member who cannot see the board with 404 on every route', async () => {
    const outsider = await createMember(s.org);

    for (const [method, path, body] of everyRoute(commentsPath(s, ticketId), comment.id)) {
      const response = await api(method, path, { token: outsider.token, org: s.org.slug, body });
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
  });

  it('answers a token restricted to other boards with 404', async () => {
    const otherBoard = await s.org.call('POST', '/api/v1/boards', { body: { name: 'Elsewhere', prefix: 'ELS' } });
    const restricted = await createToken(s.org, s.org.adminToken, { allowedBoardIds: [otherBoard.body.id] });

    const response = await api('GET', commentsPath(s, ticketId), { token: restricted.token, org: s.org.slug });

    expect(response.status).toBe(404);
  });

  it('refuses writes through a read-only token with 403 PAT_READ_ONLY but lets it read', async () => {
    const readOnly = await createToken(s.org, s.org.adminToken, { readOnly: true });
    const call = caller(s, readOnly.token);

    const post = await call('POST', commentsPath(s, ticketId), { content: 'x' });
    const patch = await call('PATCH', `${commentsPath(s, ticketId)}/${comment.id}`, { content: 'x' });
    const remove = await call('DELETE', `${commentsPath(s, ticketId)}/${comment.id}`);
    const read = await call('GET', commentsPath(s, ticketId));

    expect([post.body.error.code, patch.body.error.code, remove.body.error.code]).toEqual(['PAT_READ_ONLY', 'PAT_READ_ONLY', 'PAT_READ_ONLY']);
    expect([post.status, patch.status, remove.status, read.status]).toEqual([403, 403, 403, 200]);
    expect(await commentCountOf(s, ticketId)).toBe(1);
  });

  it('refuses deletes through a denyDelete token with 403 PAT_DENY_DELETE but lets it comment', async () => {
    const noDelete = await createToken(s.org, s.org.adminToken, { denyDelete: true });
    const call = caller(s, noDelete.token);

    const remove = await call('DELETE', `${commentsPath(s, ticketId)}/${comment.id}`);
    const post = await call('POST', commentsPath(s, ticketId), { content: 'Still allowed' });

    expect(remove.status).toBe(403);
    expect(remove.body.error.code).toBe('PAT_DENY_DELETE');
    expect(post.status).toBe(201);
    expect((await s.org.call('GET', `${commentsPath(s, ticketId)}/${comment.id}`)).status).toBe(200);
    await s.org.call('DELETE', `${commentsPath(s, ticketId)}/${post.body.data.id}`);
  });
});
