import * as z from 'zod';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { forbidden } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { authenticated, originOf, type RawBody, type RequestInfo, type Routes, onFirstUse } from '../http/routes.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../http/request.js';
import { buildMcpServer } from './server.js';
import { clientNameOfSession, clientOfMessage, legacySessionId } from './client-name.js';

const MCP_STATUSES = [200, 202, 400, 404, 405, 406, 413, 415] as const;

/**
 * What the endpoint answers, for the reference: a JSON-RPC 2.0 response, a `result` or an
 * `error` (a refused transport request, 4xx, carries an `error` and a null `id`). A client that
 * accepts `text/event-stream` may get the same message as one server-sent event.
 */
const jsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    result: z.record(z.string(), z.unknown()).optional().meta({ description: 'The method’s result (e.g. `tools` of `tools/list`, a tool result of `tools/call`)' }),
    error: z
      .object({
        code: z.number().int().meta({ description: 'JSON-RPC error code (e.g. -32600 invalid request, -32601 method not found, -32602 invalid params)' }),
        message: z.string(),
        data: z.unknown().optional(),
      })
      .optional(),
  })
  .meta({ id: 'JsonRpcMessage', description: 'A JSON-RPC 2.0 response: exactly one of `result` and `error`' });

/** A transport-level refusal as the MCP transport answers one: a JSON-RPC error with a null id. */
function jsonRpcRefusal(statusCode: number, code: number, message: string): RawBody {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }) };
}

/** The caller's context, with the MCP client's name as the credential's label (what claims show). */
function withClientName(ctx: DomainContext, name: string | undefined): DomainContext {
  if (!name) return ctx;
  return { ...ctx, actor: { ...ctx.actor, credential: { ...ctx.actor.credential, clientLabel: name } } };
}

/**
 * One MCP request through the official SDK's web-standard handler (`createMcpHandler`): the
 * 2026-07-28 per-request protocol, and 2025-11-25 clients served statelessly. A fresh server
 * per request holds the caller's context; nothing is kept between requests.
 */
async function serveMcp(ctx: DomainContext, request: RequestInfo): Promise<RawBody> {
  const origin = originOf(request);
  // DNS-rebinding protection: a browser page of another origin may not drive this endpoint.
  if (request.headers.origin !== undefined && request.headers.origin !== origin) throw forbidden('Origin not allowed', 'FORBIDDEN');
  // Nesting is bounded before anything parses or walks the message (the SDK's schemas recurse).
  if (jsonNestsDeeperThan(request.bodyText, MAX_JSON_DEPTH)) return jsonRpcRefusal(400, -32600, `The message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  let body: unknown;
  try {
    body = request.bodyText ? JSON.parse(request.bodyText) : undefined;
  } catch {
    body = undefined; // the SDK answers the parse error in JSON-RPC
  }
  // The protocol revisions served here have no JSON-RPC batches: one message, one counted request.
  if (Array.isArray(body)) return jsonRpcRefusal(400, -32600, 'JSON-RPC batches are not supported: send one message per request');
  const client = clientOfMessage(body);
  const clientName = client.name ?? clientNameOfSession(request.headers['mcp-session-id']);
  const callerCtx = withClientName(ctx, clientName);
  const handler = createMcpHandler(() => buildMcpServer(callerCtx), { legacy: 'stateless' });
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined && name !== 'mcp-session-id') headers.set(name, value);
  const response = await handler.fetch(
    new Request(`${origin}${request.path}`, { method: request.method, headers, ...(request.method === 'POST' ? { body: request.bodyText } : {}) }),
    ...(body !== undefined ? [{ parsedBody: body }] : []),
  );
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    responseHeaders[name] = value;
  });
  if (client.initialize && client.name && response.status === 200) responseHeaders['mcp-session-id'] = legacySessionId(client.name);
  return { statusCode: response.status, headers: responseHeaders, body: await response.text() };
}

/**
 * Routes of the `mcp` group. Only POST: the server is stateless, so the 2025 transport's GET
 * (a server-to-client stream) and DELETE (ending a session) have nothing to serve, and the
 * route table's fallback answers them 405 with `Allow: POST`, as the transport specifies.
 */
export const mcpRoutes: Routes = {
  'POST /api/v1/mcp': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'MCP endpoint (Model Context Protocol, streamable HTTP)',
      description:
        'The remote MCP server: protocol revisions 2026-07-28 and 2025-11-25 (stateless). Any credential as `Authorization: Bearer`; OAuth access tokens need this origin as audience. Tools are offered by what the token allows: read-only tokens and `read` scope see read tools only.',
      raw: { contentType: 'application/json', statuses: MCP_STATUSES, schema: jsonRpcMessage },
      restrictionsCheckedByOperation: true,
      errors: ['FORBIDDEN'],
      handler: (ctx, { request }) => serveMcp(ctx, request),
    }),
  ),
};

