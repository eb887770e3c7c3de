/**
 * What the MCP server SDK takes from its runtime shim (`@modelcontextprotocol/server/_shims`, an
 * export the SDK resolves by export condition: `node`, `workerd`, `browser`), assembled from the
 * SDK's public exports for this service: the light JSON Schema validator the SDK publishes
 * (`validators/cf-worker`) in place of Ajv, and Node's `process`. The Lambda bundle of the `mcp`
 * function resolves the shim to this module (infra/route-table.ts, `aliases`), so Ajv (150 KB,
 * compiled at every cold start) is not in it. The server only validates with it what a client
 * answers to an elicitation, and this server never elicits; it is given the same validator
 * explicitly (lib/mcp/server.ts), so local runs and Lambda behave alike.
 * test/unit/mcp-sdk-runtime.test.ts holds this module to the shim's exports.
 */
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
export { default as process } from 'node:process';
