/**
 * Builds the console (web/) with Vite when its sources changed since the last build: `npm start`,
 * the test suite and the CDK stack call `ensureConsoleBuilt`, so nobody runs a build by hand.
 * The build goes to a fresh folder, stamped with the hash of what it was built from, which then
 * replaces web/dist; a build whose stamp matches is kept.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = path.dirname(fileURLToPath(import.meta.url));
/** The built console: index.html and assets/ (hashed names). */
export const CONSOLE_DIST = path.join(WEB, 'dist');
const STAMP = '.source-hash';

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(WEB, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

/** The hash of everything the build reads: the sources, the page, the build settings and the locked packages. */
function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of ['index.html', 'vite.config.ts', 'build.ts', '../package-lock.json', ...filesUnder('src'), ...filesUnder('mcp-app')].sort()) {
    hash.update(file).update('\0').update(readFileSync(path.join(WEB, file))).update('\0');
  }
  return hash.digest('hex');
}

const stampOf = (dir: string): string | undefined => {
  const file = path.join(dir, STAMP);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
};

/**
 * The MCP Apps views (web/mcp-app, lib/mcp/apps.ts): each one HTML document with its script
 * bundled and inlined (an AI client renders the document alone, in a sandboxed frame), to
 * `mcp-app/<name>.html` of the build.
 */
function buildMcpApps(out: string): void {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  mkdirSync(path.join(out, 'mcp-app'), { recursive: true });
  for (const name of ['inbox']) {
    const bundled = esbuild.buildSync({
      entryPoints: [path.join(WEB, 'mcp-app', `${name}.ts`)],
      bundle: true,
      minify: true,
      format: 'esm',
      target: 'es2022',
      write: false,
      legalComments: 'none',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    // `</script` cannot appear inside the inline script; the bundle's text is escaped where it would.
    const script = bundled.outputFiles[0]!.text.replace(/<\/(script)/gi, '<\\/$1');
    const page = readFileSync(path.join(WEB, 'mcp-app', `${name}.html`), 'utf8').replace('/*SCRIPT*/', () => script);
    writeFileSync(path.join(out, 'mcp-app', `${name}.html`), page);
  }
}

/** Builds the console unless web/dist was built from the same sources; answers web/dist. */
export function ensureConsoleBuilt(): string {
  const hash = sourceHash();
  if (stampOf(CONSOLE_DIST) === hash) return CONSOLE_DIST;
  const out = path.join(WEB, `.dist-${process.pid}-${Date.now()}`);
  const vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  try {
    // Always the production build: a caller's NODE_ENV (vitest sets `test`) would otherwise give React's development build.
    execFileSync(process.execPath, [vite, 'build', '--config', path.join(WEB, 'vite.config.ts'), '--outDir', out], {
      cwd: WEB,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    buildMcpApps(out);
    writeFileSync(path.join(out, STAMP), hash);
    // Another process may have put the same build in place meanwhile: then this one is dropped.
    if (stampOf(CONSOLE_DIST) !== hash) {
      rmSync(CONSOLE_DIST, { recursive: true, force: true });
      renameSync(out, CONSOLE_DIST);
    }
  } catch (error) {
    if (stampOf(CONSOLE_DIST) !== hash) throw error;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  return CONSOLE_DIST;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(ensureConsoleBuilt());
