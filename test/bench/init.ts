/**
 * `npm run bench:init`: the cold-start cost of every function. Synthesizes the CDK stack (the
 * bundles `cdk deploy` would upload, built by the same esbuild settings), bundles a floor (only
 * ElectroDB and the DynamoDB DocumentClient, test/bench/init/floor.ts) the same way, then times
 * each bundle's module init: a fresh Node process per sample importing the bundle, the bundles
 * interleaved round by round so machine load affects all alike. Prints bundle size, median init
 * and the ratio to the floor's median. Asserts nothing; the figures go in the README.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, type CfnResource } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { BUNDLING, WorkManagementStack } from '../../infra/stack.js';

const ROUNDS = Number(process.env.BENCH_INIT_ROUNDS ?? 21);
const GOAL = 1.25;
const here = path.dirname(fileURLToPath(import.meta.url));

interface Bundle {
  name: string;
  file: string;
  bytes: number;
  /** The function's NODE_OPTIONS in the stack (e.g. --enable-source-maps), applied when timing it. */
  nodeOptions: string;
  samples: number[];
  /** Each round's sample divided by the floor's sample of the same round. */
  ratios: number[];
}

function synthesizeBundles(outdir: string): Bundle[] {
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new WorkManagementStack(app, 'BenchInit');
  const template = app.synth().getStackByName(stack.stackName).template as { Resources: Record<string, FunctionResource> };
  return [...stack.functions].map(([name, fn]) => {
    const resource = template.Resources[stack.getLogicalId(fn.node.defaultChild as CfnResource)];
    const asset = resource?.Metadata?.['aws:asset:path'];
    if (!asset) throw new Error(`No asset for function ${name}`);
    const file = path.join(outdir, asset, 'index.mjs');
    const nodeOptions = resource.Properties?.Environment?.Variables?.NODE_OPTIONS ?? '';
    return { name, file, bytes: statSync(file).size, nodeOptions, samples: [], ratios: [] };
  });
}

interface FunctionResource {
  Metadata?: Record<string, string>;
  Properties?: { Environment?: { Variables?: Record<string, string> } };
}

/** The floor, bundled with the functions' esbuild settings and run with their NODE_OPTIONS. */
async function floorBundle(outdir: string, nodeOptions: string): Promise<Bundle> {
  const file = path.join(outdir, 'floor', 'index.mjs');
  await build({
    entryPoints: [path.join(here, 'init', 'floor.ts')],
    outfile: file,
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
  });
  return { name: 'floor (ElectroDB + DocumentClient)', file, bytes: statSync(file).size, nodeOptions, samples: [], ratios: [] };
}

function importOnce(bundle: Bundle): number {
  const output = execFileSync(process.execPath, [path.join(here, 'init', 'import-once.mjs'), bundle.file], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: bundle.nodeOptions },
  });
  return Number(output.trim());
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  const outdir = mkdtempSync(path.join(tmpdir(), 'bench-init-'));
  try {
    console.log('Synthesizing the stack (bundles every function)…');
    const functions = synthesizeBundles(outdir);
    const nodeOptions = [...new Set(functions.map((bundle) => bundle.nodeOptions))];
    if (nodeOptions.length !== 1) throw new Error(`Functions differ in NODE_OPTIONS: ${nodeOptions.join(' | ')}`);
    const floor = await floorBundle(outdir, nodeOptions[0]!);
    const bundles = [floor, ...functions];
    for (const bundle of bundles) importOnce(bundle); // warm the file cache
    for (let round = 0; round < ROUNDS; round += 1) {
      // Rotate the order each round so no bundle always runs first or last.
      const samples = new Map<Bundle, number>();
      for (let index = 0; index < bundles.length; index += 1) {
        const bundle = bundles[(index + round) % bundles.length]!;
        samples.set(bundle, importOnce(bundle));
      }
      for (const [bundle, ms] of samples) {
        bundle.samples.push(ms);
        bundle.ratios.push(ms / samples.get(floor)!);
      }
    }
    console.log(`\nModule init of each bundle: ${ROUNDS} rounds of cold imports (a fresh process each, NODE_OPTIONS=${floor.nodeOptions || '(none)'}), Node ${process.version}`);
    console.log('"× floor" is the median over rounds of the bundle\'s time divided by the floor\'s time in the same round.\n');
    console.log('| function | bundle KiB | init ms (median) | init ms (min) | × floor |');
    console.log('|---|---|---|---|---|');
    let worst = 0;
    for (const bundle of bundles) {
      const ratio = median(bundle.ratios);
      if (bundle !== floor) worst = Math.max(worst, ratio);
      console.log(`| ${bundle.name} | ${(bundle.bytes / 1024).toFixed(0)} | ${median(bundle.samples).toFixed(1)} | ${Math.min(...bundle.samples).toFixed(1)} | ${ratio.toFixed(2)} |`);
    }
    console.log(`\nWorst function: ${worst.toFixed(2)}× the floor (goal ≤ ${GOAL}×): ${worst <= GOAL ? 'met' : 'NOT met'}`);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

await main();
