import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { setPlan } from '../support/api.js';
import { oauthFetch } from '../support/oauth.js';
import { boardSetup, lapseClaim, type BoardSetup } from '../support/tickets.js';
import { createAgent, createTicket, type TestAgent } from '../support/factories.js';
import { runSweep } from '../../lib/sweeper/index.js';
import { systemClock } from '../../lib/core/clock.js';

/*
 * Steering a running fleet over MCP (docs/fleet-control.md), driven by the official MCP client
 * as an agent's host would: the heartbeat tool hears directives and notes, claim-next says why no
 * work was given, a run report carries its usage, and a quarantined ticket is refused by name.
 */
let s: BoardSetup;
let agent: TestAgent;
let client: Client;
const fetch = oauthFetch();

type Structured = Record<string, any>;
const call = async (name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  return { structured: result.structuredContent as Structured, isError: result.isError === true, text: JSON.stringify(result.content) };
};

beforeAll(async () => {
  s = await boardSetup('MCP fleet control');
  await setPlan(s.org.slug, 'PRO');
  agent = await createAgent(s.org, { agent: { name: 'Model' }, settings: { maxConcurrentClaims: 5 }, boardIds: [s.boardId], token: { name: 'mcp' } });
  client = new Client({ name: 'Fleet host', version: '1.0.0' });
  const url = new URL(`http://${s.org.slug}.localhost:${new URL(inject('baseUrl')).port}/api/v1/mcp`);
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: fetch as never, requestInit: { headers: { authorization: `Bearer ${agent.token}` } } }));
});

const work = (title: string) => createTicket(s.org, s.boardId, { title, statusId: s.statuses.IN_PROGRESS.id });
const path = (ticketId: string) => `/api/v1/boards/${s.boardId}/tickets/${ticketId}`;

describe('fleet control over MCP', () => {
  it('delivers a pause, a note and a stop in tickets_heartbeat, and counts a report’s usage', async () => {
    const ticket = await work('Over MCP');
    const claimed = (await call('tickets_claim', { ticketId: ticket.id })).structured;
    await s.org.call('POST', `${path(ticket.id)}/claim/messages`, { body: { text: 'Mind the migration' } });
    await s.org.call('POST', `${path(ticket.id)}/claim/directive`, { body: { action: 'pause', message: 'Wait' } });
    const paused = (await call('tickets_heartbeat', { ticketId: ticket.id, claimCount: claimed.claimCount, usage: { costMicros: 40, inputTokens: 5 } })).structured;
    expect(paused.directive).toEqual({ action: 'pause', message: 'Wait', by: expect.any(String) });
    expect(paused.messages).toEqual([{ from: expect.any(String), text: 'Mind the migration' }]);
    expect((await call('tickets_heartbeat', { ticketId: ticket.id })).structured.messages).toEqual([]);

    const reported = await call('tickets_report', { ticketId: ticket.id, outcome: 'partial', summary: 'Half done', usage: { model: 'm', costMicros: 1_000, outputTokens: 7 }, claimCount: claimed.claimCount });
    expect(reported.isError).toBe(false);
    expect((await s.org.call('GET', path(ticket.id))).body.data.spend).toEqual({ costMicros: 1_040, inputTokens: 5, outputTokens: 7, runs: 1 });
    // A usage that is not the schema's is refused, and nothing is counted.
    expect((await call('tickets_report', { ticketId: ticket.id, outcome: 'partial', summary: 'x', usage: { costMicros: -5 } })).isError).toBe(true);
    expect((await s.org.call('GET', path(ticket.id))).body.data.spend.costMicros).toBe(1_040);

    await s.org.call('POST', `${path(ticket.id)}/claim/directive`, { body: { action: 'stop' } });
    expect((await call('tickets_heartbeat', { ticketId: ticket.id })).structured.directive.action).toBe('stop');
    expect((await call('tickets_release', { ticketId: ticket.id, handoff: { summary: 'Stopped as asked' } })).structured).toEqual({ released: true });
  });

  it('says why claim-next gave no work, and refuses a quarantined ticket by name', async () => {
    await work('Waiting');
    await s.org.call('PUT', '/api/v1/organization/dispatch', { body: { paused: true } });
    expect((await call('tickets_claim_next', {})).structured).toEqual({ claim: null, dispatchPaused: 'organization' });
    await s.org.call('PUT', '/api/v1/organization/dispatch', { body: { paused: false } });
    const next = (await call('tickets_claim_next', {})).structured;
    expect(next.claim).not.toBeNull();
    await call('tickets_release', { ticketId: next.claim.ticketId });

    const failing = await work('Failing');
    for (let lapse = 0; lapse < 3; lapse += 1) {
      expect((await call('tickets_claim', { ticketId: failing.id })).isError).toBe(false);
      await lapseClaim(failing.id);
      await runSweep(systemClock, { orgId: s.org.orgId });
    }
    const refused = await call('tickets_claim', { ticketId: failing.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('TICKET_QUARANTINED');
  });
});
