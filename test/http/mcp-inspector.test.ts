import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, setPlan } from '../support/api.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createAgent, createTicket } from '../support/factories.js';

const run = promisify(execFile);

/*
 * MCP Inspector (the pinned CLI of @modelcontextprotocol/inspector, a dev dependency) against the
 * local runtime, as the README has an operator run it: it lists the tools, and a refused call
 * shows the domain's error code. An error result carries no structured content (which would
 * have to satisfy the tool's output schema, and the Inspector then reports a schema error
 * instead of the code).
 */
let setup: BoardSetup;

beforeAll(async () => {
  setup = await boardSetup('Inspector');
  await setPlan(setup.org.slug, 'PRO');
}, 60_000);

/**
 * One Inspector CLI call over streamable HTTP as the README gives it: the shared origin, the token
 * alone (it names its organization; no X-Organization): what it printed (it exits 1 after printing an error result).
 */
async function inspector(token: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(
    process.execPath,
    ['node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', '--cli', `${baseUrl()}/api/v1/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args],
    { timeout: 20_000, env: { ...process.env, NO_COLOR: '1' } },
  ).catch((error: { stdout?: string; stderr?: string; code?: unknown }) => {
    if (typeof error.stdout !== 'string' || typeof error.code !== 'number') throw error;
    return { stdout: error.stdout, stderr: error.stderr ?? '' };
  });
}

describe('MCP Inspector', () => {
  it('lists every tool, each with its annotations and output schema', async () => {
    const { stdout } = await inspector(setup.org.adminToken, '--method', 'tools/list');
    const { tools } = JSON.parse(stdout) as { tools: { name: string; outputSchema?: unknown; annotations?: unknown }[] };
    expect(tools.length).toBeGreaterThanOrEqual(15);
    for (const tool of tools) expect([tool.name, Boolean(tool.outputSchema), Boolean(tool.annotations)]).toEqual([tool.name, true, true]);
  });

  it('shows CLAIM_SUPERSEDED, not a schema error, when a superseded claim heartbeats', async () => {
    const first = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const second = await createAgent(setup.org, { boardIds: [setup.boardId] });
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Inspected' });
    const old = await first.call('POST', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/claim`, { leaseSeconds: 600 });
    expect(old.status).toBe(201);
    expect((await api('DELETE', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/claim`, { token: setup.org.adminToken, org: setup.org.slug, body: {} })).status).toBe(200);
    expect((await second.call('POST', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/claim`, {})).status).toBe(201);

    const { stdout } = await inspector(first.token, '--method', 'tools/call', '--tool-name', 'tickets_heartbeat', '--tool-arg', `displayId=${ticket.displayId}`, '--tool-arg', `claimCount=${old.body.claim.claimCount}`);
    // The result as the Inspector prints it, then its one-line summary of the error result.
    const printed = stdout.slice(0, stdout.indexOf('\n}\n') + 2);
    const result = JSON.parse(printed) as { isError?: boolean; structuredContent?: unknown; content: { type: string; text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(JSON.parse(result.content[0]!.text).error.code).toBe('CLAIM_SUPERSEDED');
    expect(stdout).not.toMatch(/schema/i);
  });
});
