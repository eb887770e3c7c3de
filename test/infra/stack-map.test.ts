import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleAsDeployed } from '../support/bundle.js';

/**
 * A deployed function runs without `--enable-source-maps` (no map is read at cold start), yet
 * a logged error names the TypeScript file and line it came from: bundled here with the
 * functions' esbuild settings and run by plain Node, the way Lambda runs it.
 */
describe('stack traces of a deployed bundle', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'stack-map-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('refuses to log minified positions: the logged stack names the source file and line, with no source-map flag', async () => {
    const outfile = path.join(outdir, 'index.mjs');
    await bundleAsDeployed(path.resolve('test/infra/fixtures/logs-an-error.ts'), outfile);
    // Lambda's Node, as deployed: no NODE_OPTIONS. The Logger writes an error's line to standard error.
    const result = spawnSync(process.execPath, [outfile], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json' } });
    expect(result.status).toBe(0);
    const line = JSON.parse(result.stderr.trim().split('\n').at(-1)!) as { message: string; error: string };
    expect(line.message).toBe('fixture failure');
    expect(line.error).toContain('mapped at its source');
    expect(line.error).toMatch(/at \S+ \(test\/infra\/fixtures\/logs-an-error\.ts:5:\d+\)/);
    expect(line.error).not.toContain('index.mjs:1:');
  });
});
