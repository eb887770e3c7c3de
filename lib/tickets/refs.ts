import type { DomainContext } from '../core/context.js';
import { db } from '../db/service.js';
import type { AuthenticatedRoute, Route, Routes } from '../http/router.js';

/**
 * A ticket reference as people write it: the board prefix, a dash and the number ("PLAT-12",
 * any case). Ticket ids (`tkt_…`) never match it.
 */
const DISPLAY_ID = /^[A-Za-z0-9]{2,10}-[0-9]{1,12}$/;

/** The fields, in a ticket route's path or body, that name a ticket. */
const TICKET_REF_FIELDS = ['ticketId', 'subticketId', 'parentTicketId'] as const;

/**
 * The ticket id a reference names: a ticket id as it is, a display id through its key item
 * (one GetItem). An unknown display id stays as it is, so the route answers its usual 404.
 * A ticket moved to another board keeps its old key, which then resolves to a ticket that
 * is not on the old board: 404 there too.
 */
export async function resolveTicketRef(ctx: DomainContext, ref: string): Promise<string> {
  if (!DISPLAY_ID.test(ref)) return ref;
  const key = await db().entities.ticketKey.get({ orgId: ctx.org.orgId, displayId: ref.toUpperCase() }).go();
  return key.data?.ticketId ?? ref;
}

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
