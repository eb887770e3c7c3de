import type { DomainContext } from '../db/context.js';
import { onFirstUse, type AuthenticatedRoute, type Route, type Routes, type TicketRefField } from './routes.js';
import { resolveTicketRef } from '../tickets/index.js';

async function resolveFields<T>(ctx: DomainContext, values: T, fields: readonly TicketRefField[]): Promise<T> {
  if (!values || typeof values !== 'object') return values;
  const resolved: Record<string, unknown> = { ...(values as Record<string, unknown>) };
  await Promise.all(
    fields.map(async (field) => {
      const value = resolved[field];
      if (typeof value === 'string') resolved[field] = await resolveTicketRef(ctx, value);
    }),
  );
  return resolved as T;
}

/**
 * Applies what the routes of a map declare in `ticketRefs`: each named field of the path or
 * body takes a display id ("PLAT-12") as well as a ticket id, resolved before the handler runs,
 * so domain functions only ever see ticket ids. Nothing is inferred from route keys.
 */
export function withTicketRefs(routes: Routes): Routes {
  // Each route wrapped on its first use, as it is declared (`onFirstUse`): wrapping reads the declaration.
  return Object.fromEntries(Object.entries(routes).map(([key, route]): [string, Route] => [key, onFirstUse(() => resolvingRefs(route))]));
}

function resolvingRefs(route: Route): Route {
  if (route.auth !== 'credential' || !route.ticketRefs?.length) return route;
  // biome-ignore lint/suspicious/noExplicitAny: wraps a route whatever its parameter types
  const original = route as AuthenticatedRoute<any, any, any>;
  const fields = route.ticketRefs;
  // biome-ignore lint/suspicious/noExplicitAny: wraps a route whatever its parameter types
  const resolving: AuthenticatedRoute<any, any, any> = {
    ...original,
    handler: async (ctx, input) => original.handler(ctx, { ...input, params: await resolveFields(ctx, input.params, fields), body: await resolveFields(ctx, input.body, fields) }),
  };
  return resolving;
}
