import * as z from 'zod';
import { authenticated, fromOperation, type Routes, onFirstUse } from '../http/routes.js';
import { idParam, pageQuery } from '../http/validation.js';
import { withTicketRefs } from '../http/ticket-refs.js';
import { createComment, deleteComment, getComment, listComments, updateComment } from './comments.js';
import { commentContent as content, commentResult } from './shapes.js';
import { addCommentOp, listCommentsOp } from './operations.js';

const ticketParams = z.object({ boardId: idParam, ticketId: idParam });
const commentParams = ticketParams.extend({ commentId: idParam });

/** Routes of the `comments` group (the API reference); the ticket may be named by its display id. */
export const commentsRoutes: Routes = withTicketRefs({
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/comments': onFirstUse(() =>
    authenticated({
      ...fromOperation(listCommentsOp),
      summary: 'List a ticket\'s comments',
      result: commentResult,
      envelope: 'page',
      params: ticketParams,
      query: z.strictObject(pageQuery(20, 100)),
      handler: (ctx, { params, query }) => listComments(ctx, params.boardId, params.ticketId, query),
    }),
  ),
  'POST /api/v1/boards/{boardId}/tickets/{ticketId}/comments': onFirstUse(() =>
    authenticated({
      ...fromOperation(addCommentOp, { body: true }),
      summary: 'Comment on a ticket',
      result: commentResult,
      envelope: 'data',
      status: 201,
      params: ticketParams,
      handler: (ctx, { params, body }) => createComment(ctx, params.boardId, params.ticketId, body),
    }),
  ),
  'GET /api/v1/boards/{boardId}/tickets/{ticketId}/comments/{commentId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'Get a comment',
      result: commentResult,
      envelope: 'data',
      params: commentParams,
      handler: (ctx, { params }) => getComment(ctx, params.boardId, params.ticketId, params.commentId),
    }),
  ),
  'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/comments/{commentId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'Edit a comment',
      result: commentResult,
      envelope: 'data',
      params: commentParams,
      body: z.strictObject({ content }),
      handler: (ctx, { params, body }) => updateComment(ctx, params.boardId, params.ticketId, params.commentId, body),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/comments/{commentId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      fence: false,
      ticketRefs: ['ticketId'],
      summary: 'Delete a comment',
      status: 204,
      params: commentParams,
      handler: (ctx, { params }) => deleteComment(ctx, params.boardId, params.ticketId, params.commentId),
    }),
  ),
});
