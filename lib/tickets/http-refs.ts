import type { DomainContext } from '../db/context.js';
import type { AuthenticatedRoute, Route, Routes } from '../http/router.js';
import { resolveTicketRef } from './refs.js';

/** The fields, in a ticket route's path or body, that name a ticket. */
const TICKET_REF_FIELDS = ['ticketId', 'subticketId', 'parentTicketId'] as const;

async function resolveFields<T>(ctx: DomainContext, values: T): Promise<T> {
  if (!values || typeof values !== 'object') return values;
  const resolved: Record<string, unknown> = { ...(values as Record<string, unknown>) };
  await Promise.all(
    TICKET_REF_FIELDS.map(async (field) => {
      const value = resolved[field];
      if (typeof value === 'string') resolved[field] = await resolveTicketRef(ctx, value);
    }),
  );
  return resolved as T;
}

/**
 * Lets every authenticated route of a map take display ids wherever it takes a ticket id (path
 * parameters and body fields named in TICKET_REF_FIELDS): resolved before the handler runs, so
 * domain functions only ever see ticket ids.
 */
export function acceptDisplayIds(routes: Routes): Routes {
  return Object.fromEntries(
    Object.entries(routes).map(([key, route]): [string, Route] => {
      if (route.auth !== 'credential') return [key, route];
      const original = route as AuthenticatedRoute<any, any, any>;
      const resolving: AuthenticatedRoute<any, any, any> = {
        ...original,
        handler: async (ctx, input) => original.handler(ctx, { ...input, params: await resolveFields(ctx, input.params), body: await resolveFields(ctx, input.body) }),
      };
      return [key, resolving];
    }),
  );
}

/**
 * Lets every write of an existing ticket in a map take `X-Claim-Count` (fencing, lib/tickets/lease.ts):
 * the routes with a `{ticketId}` that are not reads, except taking a claim (it makes the claim
 * a fence names).
 */
export function acceptClaimFence(routes: Routes): Routes {
  return Object.fromEntries(
    Object.entries(routes).map(([key, route]): [string, Route] => {
      const takesClaim = key.startsWith('POST ') && key.endsWith('/{ticketId}/claim');
      const fenced = route.auth === 'credential' && key.includes('{ticketId}') && !key.startsWith('GET ') && !takesClaim;
      return [key, fenced ? { ...route, acceptsClaimFence: true } : route];
    }),
  );
}
