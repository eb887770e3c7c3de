import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { sourceFiles } from '../support/source-files.js';
import { dirname, join, relative, resolve } from 'node:path';

/*
 * Layers point one way: functions → lib/http + lib/<domain> → lib/db → lib/core. A module is a
 * folder of lib. HTTP adapters (`http.ts`, `*-http.ts`, `http-*.ts` in a domain folder, and every
 * file of a domain's `http/` folder) belong to the outer layer with lib/http: they may import any
 * domain, and no domain code imports them or lib/http. Among modules, no import cycle (runtime
 * imports; type-only imports are erased). A domain is reached from outside only through its
 * `index.ts`, its public face; core, db and http are layers, not domains, and are imported by file.
 * The functions (functions/*.ts, the Lambda entries) stand above lib: they import layers, HTTP
 * adapters and faces, never a domain's inner file (so a job handler is wired from its domain's face).
 */
const LIB = resolve('lib');

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function importsOf(file: string): Edge[] {
  const source = readFileSync(file, 'utf8');
  const edges: Edge[] = [];
  for (const match of source.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'/gm)) {
    const specifier = match[2]!;
    if (!specifier.startsWith('.')) continue;
    edges.push({ from: file, to: resolve(dirname(file), specifier.replace(/\.js$/, '.ts')), typeOnly: match[1] !== undefined });
  }
  return edges;
}

const moduleOf = (file: string): string => relative(LIB, file).split('/')[0]!;
const isAdapter = (file: string): boolean =>
  moduleOf(file) !== 'http' && (relative(LIB, file).split('/').includes('http') || /^(http(-[a-z-]+)?|[a-z-]+-http)\.ts$/.test(file.split('/').pop()!));
const LAYERS = new Set(['core', 'db', 'http']);
const faceOf = (module: string): string => join(LIB, module, 'index.ts');
const rank = (module: string): number => (module === 'core' ? 0 : module === 'db' ? 1 : 2);

const files = sourceFiles(LIB);
const edges = files.flatMap(importsOf).filter((edge) => edge.to.startsWith(`${LIB}/`));

describe('module graph of lib', () => {
  it('points down the layers: core imports nothing above it, db only core', () => {
    const upward = edges
      .filter((edge) => rank(moduleOf(edge.to)) > rank(moduleOf(edge.from)))
      .map((edge) => `${relative(LIB, edge.from)} → ${relative(LIB, edge.to)}`);
    expect(upward).toEqual([]);
  });

  it('keeps lib/http and the HTTP adapters out of domain code', () => {
    const inward = edges
      .filter((edge) => !isAdapter(edge.from) && moduleOf(edge.from) !== 'http' && (moduleOf(edge.to) === 'http' || isAdapter(edge.to)))
      .map((edge) => `${relative(LIB, edge.from)} → ${relative(LIB, edge.to)}`);
    expect(inward).toEqual([]);
  });

  it('reaches another domain only through its index.ts', () => {
    const bypassing = edges
      .filter((edge) => moduleOf(edge.to) !== moduleOf(edge.from) && !LAYERS.has(moduleOf(edge.to)) && edge.to !== faceOf(moduleOf(edge.to)))
      .map((edge) => `${relative(LIB, edge.from)} → ${relative(LIB, edge.to)}`);
    expect(bypassing).toEqual([]);
  });

  it('lets the functions reach a domain only through its face (or an HTTP adapter)', () => {
    const bypassing = sourceFiles(resolve('functions'))
      .flatMap(importsOf)
      .filter((edge) => edge.to.startsWith(`${LIB}/`) && !LAYERS.has(moduleOf(edge.to)) && !isAdapter(edge.to) && edge.to !== faceOf(moduleOf(edge.to)))
      .map((edge) => `${relative(resolve('.'), edge.from)} → ${relative(LIB, edge.to)}`);
    expect(bypassing).toEqual([]);
  });

  it('never imports its own domain through the face (the face is for other domains)', () => {
    const inward = edges
      .filter((edge) => moduleOf(edge.to) === moduleOf(edge.from) && edge.to === faceOf(moduleOf(edge.to)))
      .map((edge) => `${relative(LIB, edge.from)} → ${relative(LIB, edge.to)}`);
    expect(inward).toEqual([]);
  });

  it('has no import cycle among modules', () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of edges) {
      if (edge.typeOnly || isAdapter(edge.from)) continue;
      const from = moduleOf(edge.from);
      const to = moduleOf(edge.to);
      if (from === to) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (module: string, path: string[]) => {
      if (state.get(module) === 'done') return;
      if (state.get(module) === 'open') {
        cycles.push([...path.slice(path.indexOf(module)), module].join(' → '));
        return;
      }
      state.set(module, 'open');
      for (const next of graph.get(module) ?? []) visit(next, [...path, module]);
      state.set(module, 'done');
    };
    for (const module of graph.keys()) visit(module, []);
    expect(cycles).toEqual([]);
  });
});
