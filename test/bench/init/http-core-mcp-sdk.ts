/**
 * A reference row of `npm run bench:init`: the HTTP core plus the official MCP SDK's server
 * (its streamable-HTTP handler, `McpServer` and the JSON Schema validator the `mcp` function
 * uses), with no route and no tool. What the `mcp` function adds above this row is its own tools
 * and domain code; what this row adds above the HTTP core is the SDK alone.
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import { createHttpHandler } from '../../../lib/http/router.js';

export { handler as floorHandler } from './floor.js';

export const handler = createHttpHandler({});
export const sdk = { createMcpHandler, McpServer, CfWorkerJsonSchemaValidator };
