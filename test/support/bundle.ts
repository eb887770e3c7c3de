import { build } from 'esbuild';
import { BUNDLING } from '../../infra/stack.js';

/** Bundles `entry` into `outfile` the way the stack bundles a function (its esbuild settings: minified ESM, source map without sources; `alias` as a group's `aliases`, resolved). */
export async function bundleAsDeployed(entry: string, outfile: string, alias: Record<string, string> = {}): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    mainFields: BUNDLING.mainFields,
    banner: { js: BUNDLING.banner ?? '' },
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    logLevel: 'error',
    alias,
  });
}
