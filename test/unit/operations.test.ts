import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { functionGroups } from '../../infra/route-table.js';
import type { AuthenticatedRoute, Route } from '../../lib/http/routes.js';
import type { Operation } from '../../lib/core/operation.js';
import { ERRORS } from '../../lib/core/errors.js';
import { EVENT_TYPES } from '../../lib/webhooks/events.js';
import { TOOLS } from '../../lib/mcp/tools.js';
import { declaredJobKinds } from '../../lib/events/jobs.js';

/*
 * One declaration per operation (docs/design/code.md): every MCP tool offers a domain operation,
 * and so does every REST route that shares it. Nothing the operation declares is declared again,
 * or otherwise, by a tool or a route: the hints, the fence, the scope and errors, and every input
 * field is the operation's own schema object (so a limit, a default or a clamp cannot differ).
 */

const routes = functionGroups.flatMap((group) =>
  group.kind === 'http' ? Object.entries(group.routes).map(([key, route]) => ({ key, route: route as Route })) : [],
);
const routesOf = (op: Operation) => routes.filter(({ route }) => route.auth === 'credential' && (route as AuthenticatedRoute).operation === op);
/** The schema a route's body is built from: `fromOperation` wraps the operation's input (strict) in z.lazy. */
const bodyShapeOf = (route: AuthenticatedRoute): Record<string, z.ZodType> | undefined => {
  const body = route.body as (z.ZodType & { def?: { getter?: () => z.ZodObject } }) | undefined;
  const inner = body?.def?.getter ? body.def.getter() : body;
  return (inner as z.ZodObject | undefined)?.shape as Record<string, z.ZodType> | undefined;
};
const operations = [...new Set([...TOOLS.map((tool) => tool.operation), ...routes.flatMap(({ route }) => (route.auth === 'credential' && (route as AuthenticatedRoute).operation ? [(route as AuthenticatedRoute).operation!] : []))])];

describe('every MCP tool offers a domain operation, adding nothing it declares', () => {
  it.each(TOOLS.map((tool) => [tool.name, tool] as const))('%s', (_name, tool) => {
    const op = tool.operation;
    expect(op, 'declared with tool(op, …)').toBeDefined();
    expect({ readOnly: tool.readOnly, idempotent: tool.idempotent }).toEqual({ readOnly: op.scope === 'read', idempotent: op.idempotent });
    const args = tool.input.shape as Record<string, z.ZodType>;
    expect('claimCount' in args).toBe(op.fenced);
    expect('ticketId' in args && 'displayId' in args).toBe(op.target === 'ticket' || 'ticketId' in op.input().shape);
    if (op.target === 'board') expect('boardId' in args).toBe(true);
    // Every argument the operation has is its schema object, not a copy: limits cannot drift.
    const shared = Object.keys(op.input().shape).filter((field) => field in args);
    for (const field of shared) expect([field, args[field] === op.input().shape[field]]).toEqual([field, true]);
    // A write tool offers the operation's fields (all, or those it names); a tool that drops one says so with `fields`.
    if (!tool.readOnly) expect(shared.length).toBeGreaterThan(0);
  });

  it('each tool\'s operation is offered over REST too, by a route that takes the same rules', () => {
    for (const tool of TOOLS) expect([tool.name, routesOf(tool.operation).length > 0]).toEqual([tool.name, true]);
  });
});

describe('every REST route of an operation takes its rules from it', () => {
  it.each(operations.map((op) => [op.name, op] as const))('%s', (_name, op) => {
    const offered = routesOf(op);
    expect(offered.length).toBeGreaterThan(0);
    for (const { key, route } of offered) {
      const authenticated = route as AuthenticatedRoute;
      expect([key, authenticated.scope, authenticated.errors]).toEqual([key, op.scope, op.errors]);
      if (op.target === 'ticket' || op.fenced) expect([key, authenticated.fence]).toEqual([key, op.fenced]);
      if (op.target === 'ticket') expect([key, authenticated.ticketRefs]).toEqual([key, ['ticketId']]);
      const body = bodyShapeOf(authenticated);
      if (body) for (const [field, schema] of Object.entries(op.input().shape)) expect([key, field, body[field] === schema]).toEqual([key, field, true]);
      if (body) expect([key, Object.keys(body).sort()]).toEqual([key, Object.keys(op.input().shape).sort()]);
    }
  });

  it('names only catalogued errors, webhook events and declared jobs', () => {
    // The jobs the operations' domains declare: their faces are loaded with the tools above.
    const known = new Set<string>([...EVENT_TYPES, ...declaredJobKinds()]);
    for (const op of operations) {
      for (const code of op.errors) expect([op.name, code in ERRORS]).toEqual([op.name, true]);
      for (const type of op.emits) expect([op.name, type, (EVENT_TYPES as readonly string[]).includes(type)]).toEqual([op.name, type, true]);
      for (const kind of op.jobs ?? []) expect([op.name, kind, known.has(kind) && !(EVENT_TYPES as readonly string[]).includes(kind)]).toEqual([op.name, kind, true]);
    }
  });

  it('has one name per operation', () => {
    const names = operations.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(19);
  });
});
