import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONSOLE_DIST } from '../../web/build.js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, type ApiResponse, type TestOrg } from './api.js';
import { buildOrgFixture, pathFor, type OrgFixture } from './fixtures.js';
import { db } from '../../lib/db/service.js';
import { oauthFetch } from './oauth.js';

/**
 * The DynamoDB round trips each endpoint makes (authentication included), counted per request by
 * the runtime and held by the files of test/http/round-trips/, one per domain, each in process
 * (test/support/api.ts). docs/data-model.md explains each figure; the design's rule: authenticated
 * single-item GET ≤ 2, list ≤ 2 plus Query pages, create ≤ 2 plus the counter it needs. Every
 * route of the route table has an entry (routes.test.ts), and its ordinary request costs exactly
 * its budget (`atMost` marks the few whose budget covers a costlier case than the probe's).
 * scenarios.test.ts holds the figures of particular cases. These are the only files that assert
 * round trips (test/unit/idioms.test.ts holds that).
 */
export interface Probe {
  budget: number;
  /** The probe's request costs at most the budget (which covers a costlier case). */
  atMost?: boolean;
  /** The status the probe expects; a 2xx unless given. */
  status?: number;
  /** Prepares what the request needs (not counted) and makes the measured request. */
  run(org: OrgFixture): Promise<ApiResponse>;
}

export const call = (routeKey: string, body?: unknown) => (org: OrgFixture) => {
  const { method, path } = pathFor(routeKey, org);
  return org.call(method, path, { body });
};

export async function post(org: TestOrg, path: string, body: unknown): Promise<any> {
  const response = await org.call('POST', path, { body });
  if (response.status !== 201) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export const suffix = () => Math.random().toString(36).slice(2, 8);
export const freshIp = () => `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
export const oauthHost = (org: OrgFixture) => `${org.slug}.localhost:${new URL(inject('baseUrl')).port}`;

/** A request to an OAuth page on the organization's origin (form body, optional cookie), with its status, text and round trips. */
export async function pageCall(org: OrgFixture, method: string, path: string, form?: string, cookie?: string): Promise<ApiResponse & { text: string }> {
  const response = await oauthFetch()(new URL(path, `http://${oauthHost(org)}`), {
    method,
    redirect: 'manual',
    headers: { ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(cookie ? { cookie } : {}) },
    ...(form ? { body: form } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: undefined, text, headers: response.headers, roundTrips: Number(response.headers.get('x-db-round-trips') ?? NaN) };
}

/** The console's script, by its hashed name in the built page. */
export const consoleScript = (): string => /\/app\/assets\/([^"]+\.js)/.exec(readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8'))![1]!;

/** A route that answers a document rather than JSON, with its status and round trips. */
export async function rawGet(path: string): Promise<ApiResponse> {
  const response = await fetch(new URL(path, inject('baseUrl')));
  await response.arrayBuffer();
  return { status: response.status, body: undefined, headers: response.headers, roundTrips: Number(response.headers.get("x-db-round-trips") ?? NaN) };
}


/** A fresh ticket on the fixture board (setup, not measured). */
export async function freshTicket(org: OrgFixture, body: Record<string, unknown> = {}): Promise<any> {
  return (await post(org, `/api/v1/boards/${org.boardId}/tickets`, { title: `Budget ${suffix()}`, ...body })).data;
}

export const statusId = (org: OrgFixture, index: number) => org.statusIds[index]!;

/** A fresh ticket with a PENDING suggestion (written directly: setup, not measured). */
export async function suggested(org: OrgFixture): Promise<{ ticketId: string; suggestionId: string }> {
  const ticket = await freshTicket(org);
  const suggestionId = `sug_${suffix()}`;
  const now = new Date().toISOString();
  await db()
    .entities.suggestion.create({
      ticketId: ticket.id, suggestionId, orgId: org.orgId, boardId: org.boardId, fromStatusId: ticket.status.id, toStatusId: statusId(org, 3),
      suggestedById: org.agentId, suggestedByName: 'Fixture agent', state: 'PENDING', createdAt: now, updatedAt: now,
    })
    .go();
  return { ticketId: ticket.id, suggestionId };
}

const agentTokens = new Map<string, Promise<string>>();

/** A PENDING entry of the fixture's agent (a member of the fixture board) on the fixture ticket; one token minted per fixture. */
export async function pendingAgentEntry(org: OrgFixture): Promise<string> {
  if (!agentTokens.has(org.orgId)) agentTokens.set(org.orgId, post(org, `/api/v1/organizations/${org.orgId}/agents/${org.agentId}/tokens`, { name: 'time' }).then((minted) => minted.token));
  const token = await agentTokens.get(org.orgId)!;
  const entry = await api('POST', '/api/v1/time-tracking/entries', { token, org: org.slug, body: { ticketId: org.ticketId, durationMinutes: 10 } });
  if (entry.status !== 201) throw new Error(`agent entry: ${entry.status} ${JSON.stringify(entry.body)}`);
  return entry.body.id;
}

/**
 * Holds every probe to its budget: its request answers the status it expects (a 2xx unless
 * given) and costs exactly its budget in round trips, or at most it for `atMost`. One fixture
 * organization per file; `more` adds the file's other tests, with that organization.
 */
export function budgetTests(domain: string, probes: Record<string, Probe>, more?: (org: () => OrgFixture) => void): void {
  describe(`round-trip budget: ${domain}`, () => {
    let org: OrgFixture;
    beforeAll(async () => {
      org = await buildOrgFixture();
    }, 60_000);

    it.each(Object.entries(probes))('%s stays within its budget', async (_name, probe) => {
      const response = await probe.run(org);
      if (probe.status) expect(response.status, JSON.stringify(response.body)).toBe(probe.status);
      else expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
      if (probe.budget > 0) expect(response.roundTrips).toBeGreaterThan(0);
      if (probe.atMost) expect(response.roundTrips).toBeLessThanOrEqual(probe.budget);
      else expect(response.roundTrips).toBe(probe.budget);
    });

    more?.(() => org);
  });
}
