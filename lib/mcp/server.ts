import * as z from 'zod';
import { McpServer } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import { AppError } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { checkIdempotencyKey, runIdempotently } from '../db/idempotency.js';
import { errorContent, MAX_RESULT_CHARACTERS, toolsFor, type ToolDefinition } from './tools.js';
import { registerPrompts } from './prompts.js';
import { registerApps } from './apps.js';
import { RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { refuseMalformedText } from '../core/text.js';
import { withDeclaredEmits } from '../core/operation.js';

export const SERVER_INFO = { name: 'work-management', version: '1.0.0' } as const;

const INSTRUCTIONS =
  'Boards and tickets of one organization. To work on a ticket: tickets_claim it (an exclusive lease), tickets_heartbeat while you work, then tickets_report the outcome. See the work_next_ticket prompt. Tools that are not idempotent take an optional idempotencyKey (1-255 characters): called again with the same key and arguments within 24 hours, a tool returns its first result instead of doing the work twice.';

/**
 * The optional idempotency key of every write tool that is not idempotent by nature
 * (lib/db/idempotency.ts): explained once, in INSTRUCTIONS, and its length checked by the
 * handler, so each tool's schema grows by one bare property (the catalogue stays small).
 */
const idempotencyKey = z.string().optional();

/** A tool result: the structured content, and the same JSON as text (cut to the cap). */
function resultOf(structured: Record<string, unknown>) {
  const text = JSON.stringify(structured);
  return {
    content: [{ type: 'text' as const, text: text.length > MAX_RESULT_CHARACTERS ? `${text.slice(0, MAX_RESULT_CHARACTERS)}… [cut]` : text }],
    structuredContent: structured,
  };
}

/**
 * A refused call: `isError` with the error (code, message, details) as JSON text and no
 * structured content. Structured content must satisfy the tool's `outputSchema`, which
 * describes success; an error object there fails clients that validate it (MCP Inspector
 * reports a schema error instead of the code), so the error travels in the text every client shows.
 */
function errorResultOf(error: AppError) {
  const text = JSON.stringify(errorContent(error));
  return { content: [{ type: 'text' as const, text: text.length > MAX_RESULT_CHARACTERS ? `${text.slice(0, MAX_RESULT_CHARACTERS)}… [cut]` : text }], isError: true };
}

/**
 * The MCP server for one request: the tools the caller's credential is offered, each calling
 * the domain with the caller's context (the claim's name is the MCP client's name). Domain
 * errors become tool results with `isError` and the code; anything else is the SDK's.
 */
export function buildMcpServer(ctx: DomainContext): McpServer {
  // The SDK's light validator (lib/mcp/sdk-runtime.ts): it checks only elicitation answers, and constructing Ajv per request costs more.
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  for (const tool of toolsFor(ctx)) registerTool(server, ctx, tool);
  registerPrompts(server);
  registerApps(server);
  return server;
}

type StandardSchema = z.ZodObject['~standard'];
type JsonSchemaOptions = Parameters<NonNullable<StandardSchema['jsonSchema']>['input']>[0];

/**
 * A tool schema as the SDK reads it: zod validates, and its JSON Schema is listed without the
 * `$schema` key. JSON Schema 2020-12 is MCP's default dialect, so the key says nothing a client
 * does not assume, and it costs 60 characters per schema in every `tools/list` (the catalogue
 * a model carries in its context).
 */
function withoutDialect(schema: z.ZodObject): z.ZodObject {
  const standard = schema['~standard'];
  const strip = (json: Record<string, unknown>) => {
    const { $schema: _dialect, ...rest } = json;
    return compactSchema(rest) as Record<string, unknown>;
  };
  const jsonSchema = {
    input: (options: JsonSchemaOptions) => strip(standard.jsonSchema!.input(options)),
    output: (options: JsonSchemaOptions) => strip(standard.jsonSchema!.output(options)),
  };
  return { '~standard': { ...standard, jsonSchema } } as unknown as z.ZodObject;
}

/**
 * What a model needs of a schema and no more: a date's or timestamp's `format` says what its
 * 300-character `pattern` spells out, `override` is the REST reference's own rendering hint
 * (lib/core/fields.ts), and the safe-integer bounds zod states for every integer without its own
 * say nothing a model would act on. All are dropped from the listing; zod still validates with them.
 */
function compactSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactSchema);
  if (!node || typeof node !== 'object') return node;
  const { override: _hint, ...rest } = node as Record<string, unknown>;
  if (rest.format === 'date' || rest.format === 'date-time') delete rest.pattern;
  if (rest.maximum === Number.MAX_SAFE_INTEGER) delete rest.maximum;
  if (rest.minimum === Number.MIN_SAFE_INTEGER) delete rest.minimum;
  for (const [key, value] of Object.entries(rest)) rest[key] = compactSchema(value);
  return rest;
}

/** A tool's input schema as listed, built once per tool (the server is built per request). */
const inputSchemas = new WeakMap<ToolDefinition, z.ZodObject>();
function inputSchemaOf(tool: ToolDefinition): z.ZodObject {
  let schema = inputSchemas.get(tool);
  if (!schema) {
    // Strict: an argument the tool does not declare is refused, naming it, never dropped in silence.
    const declared = tool.readOnly || tool.idempotent ? tool.input : tool.input.extend({ idempotencyKey });
    schema = withoutDialect(z.strictObject(declared.shape));
    inputSchemas.set(tool, schema);
  }
  return schema;
}

function registerTool(server: McpServer, ctx: DomainContext, tool: ToolDefinition): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: inputSchemaOf(tool),
      outputSchema: withoutDialect(tool.output),
      // The tool's `title` is the display name; annotations repeat nothing of it.
      annotations: { readOnlyHint: tool.readOnly, destructiveHint: tool.destructive, idempotentHint: tool.idempotent, openWorldHint: false },
      // Its MCP Apps view (lib/mcp/apps.ts), under the current key and the one older hosts read (as ext-apps' registerAppTool writes both).
      ...(tool.ui ? { _meta: { ui: { resourceUri: tool.ui }, [RESOURCE_URI_META_KEY]: tool.ui } } : {}),
    },
    async (input: unknown) => {
      try {
        refuseMalformedText(input, 'arguments');
        const { idempotencyKey: key, ...args } = input as { idempotencyKey?: string };
        // Test runs: a tool may write only the events and jobs its operation declares (lib/core/operation.ts).
        const run = () => (process.env.VALIDATE_RESPONSES === 'true' ? withDeclaredEmits(tool.operation, () => tool.run(ctx, args as never)) : tool.run(ctx, args as never));
        if (key === undefined) return resultOf((await run()) as Record<string, unknown>);
        // As the Idempotency-Key header: the first result is kept and given again, marked in `_meta`.
        const { answer, replayed } = await runIdempotently(
          { orgId: ctx.org.orgId, actorId: ctx.actor.userId, key: checkIdempotencyKey(key, 'idempotencyKey'), payload: `mcp ${tool.name}\n${JSON.stringify(args)}`, requestId: ctx.requestId, clock: ctx.clock },
          run,
          () => true,
        );
        return { ...resultOf(answer as Record<string, unknown>), ...(replayed ? { _meta: { idempotentReplayed: true } } : {}) };
      } catch (error) {
        if (error instanceof AppError) return errorResultOf(error);
        throw error;
      }
    },
  );
}
