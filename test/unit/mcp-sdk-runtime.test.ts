import { describe, expect, it } from 'vitest';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import * as ours from '../../lib/mcp/sdk-runtime.js';
import { functionGroups } from '../../infra/route-table.js';
import { bundlingOf } from '../../infra/stack.js';

/*
 * The `mcp` bundle resolves the MCP SDK's runtime shim to lib/mcp/sdk-runtime.ts (no Ajv). That
 * holds only while our module offers what the SDK takes from its shim: an SDK upgrade that
 * changes the shim's exports fails here, not in production.
 */
describe('the MCP SDK runtime shim of the mcp bundle', () => {
  it('exports exactly what the SDK’s own Node shim exports, with the light validator', async () => {
    const sdkShim = await import('@modelcontextprotocol/server/_shims');
    expect(Object.keys(ours).sort()).toEqual(Object.keys(sdkShim).sort());
    expect(ours.DefaultJsonSchemaValidator).toBe(CfWorkerJsonSchemaValidator);
    expect(ours.process).toBe(process);
    const check = new ours.DefaultJsonSchemaValidator().getValidator({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] });
    expect(check({ ok: true }).valid).toBe(true);
    expect(check({}).valid).toBe(false);
  });

  it('is what the mcp function’s bundling resolves the shim to', () => {
    const mcp = functionGroups.find((group) => group.name === 'mcp')!;
    const args = bundlingOf(mcp).esbuildArgs ?? {};
    expect(args['--alias:@modelcontextprotocol/server/_shims']).toMatch(/lib\/mcp\/sdk-runtime\.ts$/);
  });
});
