import { forbidden, invalidField, notFound } from '../core/errors.js';
import { attributionOf, type DomainContext } from '../db/context.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { guarded, isConditionFailure, transact, type TransactionEntities } from '../db/transact.js';
import type { CommentItem, TicketItem } from '../db/entities/index.js';
import { eventPuts, newEventRecord } from '../events/index.js';
import { pageOf } from '../core/pages.js';
import { hasPermission, requirePermission } from '../organizations/index.js';
import { assertFence, fenceCondition, loadTicketOnBoard, loadTicketOnBoardWith, baseTicketData, maySeeSecretComments } from '../tickets/index.js';

/** A comment as the API shows it (the API reference). */
export function presentComment(comment: CommentItem) {
  return {
    id: comment.commentId,
    content: comment.content,
    isSecret: comment.isSecret,
    author: { id: comment.authorId, name: comment.authorName },
    parentId: comment.parentId ?? null,
    createdAt: comment.createdAt,
    updatedAt: comment.updatedAt,
  };
}

/** Secret comments are for the organization's own people: customer users never see them (the API reference). */

const canSee = (ctx: DomainContext, comment: CommentItem): boolean => !comment.isSecret || maySeeSecretComments(ctx);

/** GET …/comments: the ticket's comments the caller may see, oldest first, paginated with an exact total. */
export async function listComments(ctx: DomainContext, boardId: string, ticketId: string, query: { page: number; limit: number }) {
  // The Query runs beside the access check (same latency as one read); its result is used only
  // once the ticket proved visible.
  const [, comments] = await Promise.all([
    loadTicketOnBoard(ctx, boardId, ticketId),
    db().entities.comment.query.byTicket({ ticketId }).go({ pages: 'all' }),
  ]);
  const visible = comments.data
    .filter((comment) => canSee(ctx, comment))
    .sort((a, b) => a.commentId.localeCompare(b.commentId));
  return pageOf(visible.map(presentComment), query.page, query.limit);
}

/** GET …/comments/{commentId} → {data: comment}; a secret comment is 404 for customer users. */
export async function getComment(ctx: DomainContext, boardId: string, ticketId: string, commentId: string) {
  const { comment } = await loadComment(ctx, boardId, ticketId, commentId);
  return presentComment(comment);
}

export interface CreateCommentInput {
  content: string;
  isSecret?: boolean;
  parentId?: string;
}

/**
 * POST …/comments. Anyone who can see the ticket and may create or edit tickets may comment
 * (customer users hold tickets:create). In one transaction: the comment, the ticket's
 * commentCount, a check that the parent still exists, and the comment.created event.
 */
export async function createComment(ctx: DomainContext, boardId: string, ticketId: string, input: CreateCommentInput) {
  requireCommenter(ctx);
  if (input.isSecret) requireSecretCommenter(ctx);
  // A fenced comment (X-Claim-Count) is decided again from a fresh read when the lease changed under it.
  return retryLostRaces(() => createCommentOnce(ctx, boardId, ticketId, input));
}

async function createCommentOnce(ctx: DomainContext, boardId: string, ticketId: string, input: CreateCommentInput) {
  const { ticket, more } = await loadTicketOnBoardWith(ctx, boardId, ticketId, input.parentId ? [commentKey(ticketId, input.parentId)] : []);
  assertFence(ctx, ticket);
  const parent = more[0] as CommentItem | undefined;
  // A parent the caller may not see is as unknown to them as a missing one.
  if (input.parentId && (!parent || !canSee(ctx, parent))) throw invalidField('parentId', 'Unknown comment of this ticket');
  // A reply to a secret comment is secret too: a visible reply would tell customers that a
  // secret comment exists (its parentId). Only people who see the parent can reply to it.
  const isSecret = (input.isSecret ?? false) || parent?.isSecret === true;

  const now = ctx.clock.now().toISOString();
  const comment: CommentItem = {
    ticketId,
    commentId: newId('cmt'),
    orgId: ctx.org.orgId,
    boardId,
    ...(input.parentId ? { parentId: input.parentId } : {}),
    content: input.content,
    isSecret,
    authorId: ctx.actor.userId,
    authorName: ctx.actor.name,
    createdAt: now,
    updatedAt: now,
  };
  // Ids and state only, never the content (docs/webhooks.md).
  const event = newEventRecord(ctx.org.orgId, ctx.clock, {
    type: 'comment.created',
    data: { ...baseTicketData(ticket), commentId: comment.commentId, authorId: comment.authorId, isSecret },
    ...(ctx.actor.isAgent ? { attribution: attributionOf(ctx) } : {}),
  });
  await transact((e) => [
    guarded(e.comment.create(comment).commit(), () => new LostRace('The comment could not be stored; retry')),
    countComments(e, ticket, 1, isSecret, ctx),
    ...(input.parentId
      ? [
          guarded(e.comment.check(commentKey(ticketId, input.parentId).key).where((attr, op) => op.exists(attr.commentId)).commit(), () =>
            invalidField('parentId', 'Unknown comment of this ticket'),
          ),
        ]
      : []),
    ...eventPuts(e, [event]),
  ]);
  return presentComment(comment);
}

/** PATCH …/comments/{commentId}: new content, by its author or a holder of tickets:edit. */
export async function updateComment(ctx: DomainContext, boardId: string, ticketId: string, commentId: string, input: { content: string }) {
  return retryLostRaces(async () => {
    const { comment } = await loadComment(ctx, boardId, ticketId, commentId);
    requireAuthorOr(ctx, comment, 'tickets:edit');
    const updatedAt = ctx.clock.now().toISOString();
    try {
      // Guarded by the updatedAt read, so a concurrent edit or delete is not silently overwritten.
      await db()
        .entities.comment.patch({ ticketId, commentId })
        .set({ content: input.content, updatedAt })
        .where((attr, op) => op.eq(attr.updatedAt, comment.updatedAt))
        .go();
    } catch (error) {
      if (isConditionFailure(error)) throw new LostRace('The comment changed concurrently; retry');
      throw error;
    }
    return presentComment({ ...comment, content: input.content, updatedAt });
  });
}

/**
 * DELETE …/comments/{commentId}: by its author or a holder of tickets:delete. The comment and
 * the ticket's commentCount change in one transaction. Replies are kept (their parentId then
 * names a deleted comment).
 */
export async function deleteComment(ctx: DomainContext, boardId: string, ticketId: string, commentId: string): Promise<void> {
  const { ticket, comment } = await loadComment(ctx, boardId, ticketId, commentId);
  requireAuthorOr(ctx, comment, 'tickets:delete');
  await transact((e) => [
    guarded(
      e.comment
        .delete({ ticketId, commentId })
        .where((attr, op) => op.exists(attr.commentId))
        .commit(),
      () => notFound('Comment'),
    ),
    countComments(e, ticket, -1, comment.isSecret),
  ]);
}

/** The visible ticket and one of its comments the caller may see, in one BatchGetItem; 404 otherwise. */
async function loadComment(ctx: DomainContext, boardId: string, ticketId: string, commentId: string): Promise<{ ticket: TicketItem; comment: CommentItem }> {
  const { ticket, more } = await loadTicketOnBoardWith(ctx, boardId, ticketId, [commentKey(ticketId, commentId)]);
  const comment = more[0] as CommentItem | undefined;
  if (!comment || !canSee(ctx, comment)) throw notFound('Comment');
  return { ticket, comment };
}

const commentKey = (ticketId: string, commentId: string) => ({ entity: db().entities.comment, key: { ticketId, commentId } });

/**
 * The ticket's commentCount (and secretCommentCount for a secret comment), changed in place on
 * a live ticket, and for a fenced comment only while the writer's lease holds (`fenceCondition`). It is no content change (no
 * updatedAt, no ticket.updated event), but it bumps `version`: ticket writes replace the whole
 * item guarded by `version`, and a counter change they did not see must make them fail and
 * retry rather than write back the old count.
 */
function countComments(e: TransactionEntities, ticket: TicketItem, delta: 1 | -1, isSecret: boolean, fenced?: DomainContext) {
  const fence = fenced?.claimFence !== undefined ? fenceCondition(fenced) : undefined;
  return guarded(
    e.ticket
      .patch({ ticketId: ticket.ticketId })
      .add({ commentCount: delta, ...(isSecret ? { secretCommentCount: delta } : {}), version: 1 })
      .where((attr, op) => [`${op.eq(attr.isDeleted, false)} AND ${op.eq(attr.boardId, ticket.boardId)}`, ...(fence ? [fence(attr, op)] : [])].join(' AND '))
      .commit(),
    // A fenced comment re-reads to say why (the ticket gone, or the lease no longer the writer's).
    () => (fence ? new LostRace('The ticket or its claim changed concurrently; retry') : notFound('Ticket')),
  );
}

/** Who may comment: anyone who may create or edit tickets (customer users hold tickets:create). */
function requireCommenter(ctx: DomainContext): void {
  if (!hasPermission(ctx, 'tickets:create') && !hasPermission(ctx, 'tickets:edit')) {
    throw forbidden('Missing permission tickets:create or tickets:edit', 'FORBIDDEN', { permission: 'tickets:create' });
  }
}

/** Secret comments need tickets:add-secret-comments; customer users can never write them. */
function requireSecretCommenter(ctx: DomainContext): void {
  if (!maySeeSecretComments(ctx)) throw forbidden('Customer users cannot write secret comments', 'FORBIDDEN', { permission: 'tickets:add-secret-comments' });
  requirePermission(ctx, 'tickets:add-secret-comments');
}

function requireAuthorOr(ctx: DomainContext, comment: CommentItem, permission: 'tickets:edit' | 'tickets:delete'): void {
  if (comment.authorId === ctx.actor.userId) return;
  if (!hasPermission(ctx, permission)) {
    throw forbidden(`Only the author or a holder of ${permission} may change this comment`, 'FORBIDDEN', { permission });
  }
}
