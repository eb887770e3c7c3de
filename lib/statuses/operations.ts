import { operation } from '../core/operation.js';

/* The statuses domain's operations offered by REST and MCP alike (lib/core/operation.ts). */

export const listStatusesOp = /* @__PURE__ */ operation({ name: 'statuses.list', scope: 'read', fenced: false, idempotent: true, errors: [], emits: [] });
