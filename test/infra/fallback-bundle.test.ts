import { execSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundlingOf, BUNDLING } from '../../infra/stack.js';
import { httpGroups } from '../../infra/route-table.js';

/**
 * The `$default` function learns the route keys from a file the stack puts beside its bundle
 * at synth, not by bundling every domain. Bundled here the way the stack bundles it (the same
 * esbuild settings and the same after-bundling commands), then invoked as Lambda would
 * (LAMBDA_TASK_ROOT is the bundle's directory).
 */
describe('the $default function bundle', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'fallback-bundle-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('answers 405 with Allow for a known path and 404 for an unknown one, from the keys written beside the bundle at synth', async () => {
    const group = httpGroups().find((candidate) => candidate.embeds?.includes('ROUTE_KEYS'))!;
    const bundling = bundlingOf(group);
    expect(bundling.commandHooks).toBeDefined();
    const outfile = path.join(outdir, 'index.mjs');
    const result = await build({
      entryPoints: [path.resolve(group.entry)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      mainFields: BUNDLING.mainFields,
      banner: { js: BUNDLING.banner ?? '' },
      metafile: true,
      logLevel: 'error',
    });
    // Only the router and the fallback itself: no domain's routes are bundled to learn their keys.
    // (A domain's face may be read while bundling; what counts is what reaches the output.)
    const output = Object.values(result.metafile.outputs).find((candidate) => candidate.entryPoint !== undefined)!;
    const domains = Object.entries(output.inputs)
      .filter(([input, { bytesInOutput }]) => bytesInOutput > 0 && /^lib\/(tickets|boards|agents|users)\//.test(input))
      .map(([input]) => input);
    expect(domains).toEqual([]);

    for (const command of bundling.commandHooks!.afterBundling(path.resolve('.'), outdir)) execSync(command);
    expect(readdirSync(outdir).sort()).toEqual(['ROUTE_KEYS.json', 'index.mjs']);
    const saved = process.env.LAMBDA_TASK_ROOT;
    process.env.LAMBDA_TASK_ROOT = outdir;
    try {
      const { handler } = (await import(pathToFileURL(outfile).href)) as { handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; headers?: Record<string, string>; body: string }> };
      const event = (method: string, rawPath: string) => ({
        version: '2.0',
        routeKey: '$default',
        rawPath,
        rawQueryString: '',
        headers: { host: 'acme.localhost' },
        requestContext: { http: { method, path: rawPath, sourceIp: '127.0.0.1' }, requestId: 'test', timeEpoch: Date.now() },
        isBase64Encoded: false,
      });
      const notAllowed = await handler(event('DELETE', '/api/v1/boards'), {});
      expect(notAllowed.statusCode).toBe(405);
      expect(notAllowed.headers?.allow ?? notAllowed.headers?.Allow).toBe('GET, POST');
      const unknown = await handler(event('GET', '/api/v1/nothing-here'), {});
      expect(unknown.statusCode).toBe(404);
    } finally {
      if (saved === undefined) delete process.env.LAMBDA_TASK_ROOT;
      else process.env.LAMBDA_TASK_ROOT = saved;
    }
  });
});
