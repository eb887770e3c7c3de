import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allRouteKeys, functionGroups, httpGroups } from '../../infra/route-table.js';

describe('route table', () => {
  it.each(httpGroups().map((group) => [group.name, group] as const))('serves from the entry of group %s exactly the route map the table names', async (_name, group) => {
    const module = (await import(pathToFileURL(resolve(group.entry)).href)) as { routes: Record<string, unknown> };
    expect(module.routes).toBe(group.routes);
  });

  it('lists every route key once across all groups', () => {
    const all = allRouteKeys();
    expect(new Set(all).size).toBe(all.length);
  });

  it('names an entry file that exports a handler for every function', async () => {
    for (const group of functionGroups) {
      const module = (await import(pathToFileURL(resolve(group.entry)).href)) as { handler?: unknown };
      expect(typeof module.handler, group.entry).toBe('function');
    }
  });
});
