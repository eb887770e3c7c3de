import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openApiDocument } from '../lib/http/openapi.js';
import { allRouteKeys, httpGroups, type EmbeddedValue, type HttpGroup } from './route-table.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** What the reference says about the service as a whole. */
export const API_INFO = {
  title: 'Work-management API',
  version: pkg.version,
  description:
    'Boards, tickets and comments for organizations, with first-class AI agents: scoped tokens, exclusive expiring claims on tickets, approval-gated moves. Every organization is served on its own subdomain; errors share one envelope (`error.code`, `error.message`, `error.details`, `error.requestId`).',
};

const producers: Record<EmbeddedValue, () => string> = {
  ROUTE_KEYS: () => JSON.stringify(allRouteKeys()),
  OPENAPI_DOCUMENT: () => JSON.stringify(openApiDocument(httpGroups(), API_INFO)),
};

/** The values a function embeds, by variable name (computed from the route table). */
export function embeddedValues(group: HttpGroup): Record<string, string> {
  return Object.fromEntries((group.embeds ?? []).map((name) => [name, producers[name]()]));
}

/** Every embedded value of every function: the local runtime sets them all in its one process. */
export function allEmbeddedValues(): Record<string, string> {
  return Object.assign({}, ...httpGroups().map(embeddedValues)) as Record<string, string>;
}

/**
 * Writes a function's embedded values as `<NAME>.json` files (synth; one directory per function,
 * rewritten on every synth, so repeated synths leave nothing behind); answers their paths.
 */
export function writeEmbeddedFiles(group: HttpGroup, dir = path.join(tmpdir(), 'work-management-embedded', group.name)): string[] {
  mkdirSync(dir, { recursive: true });
  return Object.entries(embeddedValues(group)).map(([name, value]) => {
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, value);
    return file;
  });
}
