import { describe, expect, it } from 'vitest';
import { httpGroups, routeKeysOf } from '../../../infra/route-table.js';
import { agentProbes } from './agents.js';
import { claimProbes } from './claims.js';
import { platformProbes } from './platform.js';
import { releaseProbes, milestoneProbes } from './planning.js';
import { ticketProbes } from './tickets.js';
import { timeProbes } from './time.js';
import { wikiProbes } from './wiki.js';

describe('round-trip budgets', () => {
  it('have a probe for every route of the route table, each once', () => {
    const maps = [platformProbes(), claimProbes(), agentProbes(), ticketProbes(), wikiProbes(), releaseProbes(), milestoneProbes(), timeProbes()];
    const keys = maps.flatMap((probes) => Object.keys(probes));
    expect(keys.sort()).toEqual(httpGroups().flatMap(routeKeysOf).sort());
  });
});
