import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { authenticated } from '../../lib/http/routes.js';
import { pageOf } from '../../lib/core/pages.js';
import { ticketResult } from '../../lib/tickets/shapes.js';

/*
 * A route's handler must return what its `result` shape says: the type checker (run by `npm test`
 * before the suite) refuses a presenter that drifts from its shape. Each `@ts-expect-error` below
 * fails the type check if the drift it marks were ever accepted.
 */
const shape = z.strictObject({ id: z.string(), state: z.enum(['open', 'closed']), closedAt: z.string().nullable() });

describe('the result type of a route', () => {
  it('accepts a handler returning its shape, a page of it for the page envelope, and anything for a route without one', () => {
    const routes = [
      authenticated({ scope: 'read', result: shape, handler: async () => ({ id: 'x', state: 'open' as const, closedAt: null }) }),
      authenticated({ scope: 'read', envelope: 'page', result: shape, handler: async () => pageOf([{ id: 'x', state: 'closed' as const, closedAt: 'now' }], 1, 20) }),
      authenticated({ scope: 'write', status: 204, handler: async () => undefined }),
    ];
    expect(routes.map((route) => route.auth)).toEqual(['credential', 'credential', 'credential']);
  });

  it('refuses a handler whose result drifts from the shape', () => {
    const drifted = [
      // @ts-expect-error a missing field
      authenticated({ scope: 'read', result: shape, handler: async () => ({ id: 'x', state: 'open' as const }) }),
      // @ts-expect-error a value outside the enum
      authenticated({ scope: 'read', result: shape, handler: async () => ({ id: 'x', state: 'archived' as const, closedAt: null }) }),
      // @ts-expect-error undefined where the shape says null
      authenticated({ scope: 'read', result: shape, handler: async () => ({ id: 'x', state: 'open' as const, closedAt: undefined }) }),
      // @ts-expect-error one item where the page envelope needs a page
      authenticated({ scope: 'read', envelope: 'page', result: shape, handler: async () => ({ id: 'x', state: 'open' as const, closedAt: null }) }),
      // @ts-expect-error a ticket presenter that lost a field
      authenticated({ scope: 'read', result: ticketResult, handler: async () => ({ id: 'tkt_1', displayId: 'PLAT-1' }) }),
    ];
    expect(drifted).toHaveLength(5);
  });
});
