import { operation } from '../core/operation.js';

/* The wiki's operations offered by REST and MCP alike (lib/core/operation.ts). */

export const searchWikiOp = /* @__PURE__ */ operation({ name: 'wiki.search', scope: 'read', fenced: false, idempotent: true, errors: [], emits: [] });

export const getPageOp = /* @__PURE__ */ operation({ name: 'wiki.getPage', scope: 'read', fenced: false, idempotent: true, errors: [], emits: [] });
