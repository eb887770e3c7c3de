import * as z from 'zod';
import { operation } from '../core/operation.js';

/* The boards domain's operations offered by REST and MCP alike (lib/core/operation.ts). */

export const listBoardsOp = /* @__PURE__ */ operation({
  name: 'boards.list',
  scope: 'read',
  fenced: false,
  idempotent: true,
  errors: [],
  emits: [],
  input: () => z.object({ search: z.string().max(100).optional() }),
});
