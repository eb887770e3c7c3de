/**
 * `npm run bench:init`: the cold-start cost of every function. Synthesizes the CDK stack (the
 * bundles `cdk deploy` would upload, built by the same esbuild settings), bundles a floor (only
 * ElectroDB and the DynamoDB DocumentClient, test/bench/init/floor.ts) the same way, then times
 * each bundle's module init: a fresh Node process per sample importing the bundle, the bundles
 * interleaved round by round so machine load affects all alike. Prints bundle size, median init
 * and the ratio to the floor's median, by wall time and by CPU time (the steadier of the two on a
 * shared machine). Three reference rows show where a function's cost lies: the floor plus zod,
 * the HTTP core every HTTP function loads before its routes, and that core plus the MCP SDK.
 * Asserts nothing; the figures go in docs/performance.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, type CfnResource } from 'aws-cdk-lib';
import { WorkManagementStack } from '../../infra/stack.js';
import { bundleAsDeployed } from '../support/bundle.js';
import { functionGroups } from '../../infra/route-table.js';

const ROUNDS = Number(process.env.BENCH_INIT_ROUNDS ?? 21);
/**
 * The decided goals, against the floor loaded without source-map processing, each function as
 * deployed (its own NODE_OPTIONS: none since stacks are mapped when logged, lib/core/stack-map.ts):
 * every HTTP function at most 1.35×, the `mcp` function (the MCP SDK) at most 1.6×, the
 * background functions (stream, queue, schedule) at most 1.1×.
 */
const GOALS: Record<string, number> = { mcp: 1.6 };
const HTTP_GOAL = 1.35;
const BACKGROUND_GOAL = 1.1;
const kinds = new Map(functionGroups.map((group) => [group.name, group.kind]));
const goalOf = (name: string): number => GOALS[name] ?? (kinds.get(name) === 'http' ? HTTP_GOAL : BACKGROUND_GOAL);
const here = path.dirname(fileURLToPath(import.meta.url));

interface Bundle {
  name: string;
  file: string;
  bytes: number;
  /** The function's NODE_OPTIONS in the stack (e.g. --enable-source-maps), applied when timing it. */
  nodeOptions: string;
  /** Wall time of each sample (ms). */
  samples: number[];
  /** Each round's sample divided by the floor's sample of the same round. */
  ratios: number[];
  /** CPU time of each sample (ms), and its ratio to the floor's in the same round. */
  cpuSamples: number[];
  cpuRatios: number[];
  /** A reference bundle, not a function: left out of the goal. */
  reference?: boolean;
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
    return { name, file, bytes: statSync(file).size, nodeOptions, samples: [], ratios: [], cpuSamples: [], cpuRatios: [] };
  });
}

interface FunctionResource {
  Metadata?: Record<string, string>;
  Properties?: { Environment?: { Variables?: Record<string, string> } };
}

/** A bench bundle (test/bench/init/<entry>.ts), built with the functions' esbuild settings and run with their NODE_OPTIONS. */
async function benchBundle(outdir: string, entry: string, name: string, nodeOptions: string, aliasesOf?: string): Promise<Bundle> {
  const file = path.join(outdir, entry, 'index.mjs');
  // A reference of a group's code takes that group's aliases (the `mcp` function's SDK shim).
  const group = functionGroups.find((candidate) => candidate.name === aliasesOf);
  const aliases: [string, string][] = group && 'aliases' in group ? Object.entries(group.aliases ?? {}) : [];
  await bundleAsDeployed(path.join(here, 'init', `${entry}.ts`), file, Object.fromEntries(aliases.map(([specifier, file]) => [specifier, path.resolve(here, '../..', file)])));
  return { name, file, bytes: statSync(file).size, nodeOptions, samples: [], ratios: [], cpuSamples: [], cpuRatios: [], reference: true };
}

/** One cold import of the bundle in a fresh process: [wall ms, CPU ms]. */
function importOnce(bundle: Bundle): [number, number] {
  const output = execFileSync(process.execPath, [path.join(here, 'init', 'import-once.mjs'), bundle.file], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: bundle.nodeOptions },
  });
  const [wall, cpu] = output.trim().split(' ').map(Number);
  return [wall!, cpu!];
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
    // The floor and the references load without source-map processing; each function as deployed.
    const floor = await benchBundle(outdir, 'floor', 'floor (ElectroDB + DocumentClient)', '');
    const references = [
      await benchBundle(outdir, 'floor-zod', 'reference: floor + zod', ''),
      await benchBundle(outdir, 'http-core', 'reference: HTTP core, no routes', ''),
      await benchBundle(outdir, 'http-core-mcp-sdk', 'reference: HTTP core + MCP SDK, no tools', '', 'mcp'),
    ];
    const bundles = [floor, ...references, ...functions];
    for (const bundle of bundles) importOnce(bundle); // warm the file cache
    for (let round = 0; round < ROUNDS; round += 1) {
      // Rotate the order each round so no bundle always runs first or last.
      const samples = new Map<Bundle, [number, number]>();
      for (let index = 0; index < bundles.length; index += 1) {
        const bundle = bundles[(index + round) % bundles.length]!;
        samples.set(bundle, importOnce(bundle));
      }
      const [floorWall, floorCpu] = samples.get(floor)!;
      for (const [bundle, [wall, cpu]] of samples) {
        bundle.samples.push(wall);
        bundle.ratios.push(wall / floorWall);
        bundle.cpuSamples.push(cpu);
        bundle.cpuRatios.push(cpu / floorCpu);
      }
    }
    const deployedOptions = [...new Set(functions.map((bundle) => bundle.nodeOptions || '(none)'))].join(', ');
    console.log(`\nModule init of each bundle: ${ROUNDS} rounds of cold imports (a fresh process each; the floor without NODE_OPTIONS, the functions as deployed: NODE_OPTIONS ${deployedOptions}), Node ${process.version}`);
    console.log('"× floor" is the median over rounds of the bundle\'s time divided by the floor\'s time in the same round; CPU time counts all the process\'s threads.\n');
    console.log('| function | bundle KiB | init ms (median) | × floor | CPU ms (median) | × floor (CPU) | goal |');
    console.log('|---|---|---|---|---|---|---|');
    const over: string[] = [];
    for (const bundle of bundles) {
      const ratio = median(bundle.ratios);
      const cpuRatio = median(bundle.cpuRatios);
      if (!bundle.reference && (ratio > goalOf(bundle.name) || cpuRatio > goalOf(bundle.name))) over.push(`${bundle.name} ${ratio.toFixed(2)} / ${cpuRatio.toFixed(2)} (goal ${goalOf(bundle.name)})`);
      console.log(`| ${bundle.name} | ${(bundle.bytes / 1024).toFixed(0)} | ${median(bundle.samples).toFixed(1)} | ${ratio.toFixed(2)} | ${median(bundle.cpuSamples).toFixed(1)} | ${cpuRatio.toFixed(2)} | ${bundle.reference ? '' : `≤ ${goalOf(bundle.name)}`} |`);
    }
    console.log(`\nGoals: ≤ ${HTTP_GOAL}× the floor for every HTTP function, ≤ ${GOALS.mcp}× for mcp, ≤ ${BACKGROUND_GOAL}× for the stream, queue and schedule functions (wall and CPU).`);
    console.log(over.length ? `Over the goal (wall / CPU): ${over.join('; ')}` : 'Every function meets its goal.');
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

await main();
