import * as z from 'zod';
import { operation } from '../core/operation.js';
import { idParam } from '../core/fields.js';
import { commentContent } from './shapes.js';

/* The comments domain's operations (lib/core/operation.ts): what its REST routes and MCP tools offer, declared once. */

export const addCommentOp = /* @__PURE__ */ operation({
  name: 'comments.add',
  scope: 'write',
  target: 'ticket',
  fenced: true,
  idempotent: false,
  errors: [],
  emits: ['comment.created'],
  input: () => z.object({ content: commentContent, isSecret: z.boolean().optional(), parentId: idParam.optional() }),
});

export const listCommentsOp = /* @__PURE__ */ operation({ name: 'comments.list', scope: 'read', target: 'ticket', fenced: false, idempotent: true, errors: [], emits: [] });
