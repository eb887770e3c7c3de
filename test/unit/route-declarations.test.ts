import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { functionGroups } from '../../infra/route-table.js';
import type { AuthenticatedRoute, Route } from '../../lib/http/routes.js';

/*
 * Fencing and display-id resolution are declared on each route (`fence`, `ticketRefs`), not
 * inferred from route-key text. The old inference lives on here only to check the
 * declarations: a route of a ticket must declare both, and what it declares must agree with what
 * the route's key and schemas say.
 */
const TICKET_REF_FIELDS = ['ticketId', 'subticketId', 'parentTicketId', 'blockerId'] as const;
/** The groups whose route maps apply `ticketRefs` (lib/http/ticket-refs.ts `withTicketRefs`). */
const RESOLVING_GROUPS = new Set(['tickets', 'fleet', 'comments', 'time-tracking']);

const routesOf = (): { group: string; key: string; route: AuthenticatedRoute }[] =>
  functionGroups.flatMap((group) =>
    group.kind === 'http'
      ? Object.entries(group.routes)
          .filter(([, route]) => (route as Route).auth === 'credential')
          .map(([key, route]) => ({ group: group.name, key, route: route as AuthenticatedRoute }))
      : [],
  );

const fieldsOf = (schema: z.ZodType | undefined): string[] => {
  // A body built from an operation is its input wrapped in z.lazy (lib/http/routes.ts, `fromOperation`).
  const getter = (schema as { def?: { getter?: () => z.ZodType } } | undefined)?.def?.getter;
  const shape = ((getter ? getter() : schema) as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
};

describe('what routes declare about tickets', () => {
  it('every route of a ticket declares fence and ticketRefs', () => {
    const ticketRoutes = routesOf().filter(({ key }) => key.includes('{ticketId}'));
    expect(ticketRoutes.length).toBeGreaterThan(30);
    for (const { key, route } of ticketRoutes) expect([key, 'fence' in route, 'ticketRefs' in route]).toEqual([key, true, true]);
  });

  it('fences exactly the writes of an existing ticket in the tickets and fleet groups, taking a claim and directing its holder aside, plus new comments and time entries', () => {
    // The writes a lease holder makes about its ticket beyond the ticket itself (issue 29): a comment, time booked on it.
    const alsoFenced = new Set(['POST /api/v1/boards/{boardId}/tickets/{ticketId}/comments', 'POST /api/v1/time-tracking/entries']);
    // A person's words to the holder, and a person's lifting of a quarantine (docs/fleet-control.md): never written under a lease.
    const toTheHolder = new Set([
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/directive',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/messages',
      'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/quarantine',
    ]);
    for (const { group, key, route } of routesOf()) {
      const inferred =
        alsoFenced.has(key) ||
        (['tickets', 'fleet'].includes(group) && key.includes('{ticketId}') && !key.startsWith('GET ') && !(key.startsWith('POST ') && key.endsWith('/{ticketId}/claim')) && !toTheHolder.has(key));
      expect([key, route.fence === true]).toEqual([key, inferred]);
    }
  });

  it('resolves display ids in exactly the fields that name a ticket, in the groups that resolve them', () => {
    for (const { group, key, route } of routesOf()) {
      const fields = new Set([...fieldsOf(route.params), ...fieldsOf(route.body)]);
      const inferred = RESOLVING_GROUPS.has(group) ? TICKET_REF_FIELDS.filter((field) => fields.has(field)) : [];
      expect([key, [...(route.ticketRefs ?? [])]]).toEqual([key, inferred]);
    }
  });
});
