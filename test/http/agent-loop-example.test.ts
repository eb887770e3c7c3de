import { describe, expect, inject, it } from 'vitest';
import { execFile } from 'node:child_process';
import { setPlan } from '../support/api.js';
import { boardSetup } from '../support/tickets.js';
import { createAgent } from '../support/factories.js';
import { waitUntil } from '../support/wait.js';

/** Runs examples/agent-loop.mjs (the script docs/agents.md shows) against the local runtime. */
function runAgentLoop(env: Record<string, string>): Promise<{ code: number; lines: { message: string; [field: string]: unknown }[]; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['examples/agent-loop.mjs'], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      const lines = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, lines, output: stdout + stderr });
    });
  });
}

/** A board with no claimable work, and an agent (Pro plan) with a token. */
async function idleAgent(board: string) {
  const s = await boardSetup(board);
  await setPlan(s.org.slug, 'PRO');
  const { token } = await createAgent(s.org, { token: { name: 'loop' } });
  return { s, token };
}

describe('the example agent loop', () => {
  it('claims the next ready ticket, heartbeats with a note, moves it to review with a reason and releases it with a handoff', async () => {
    const s = await boardSetup('Agent loop', 'LOOP');
    await setPlan(s.org.slug, 'PRO');
    const agents = `/api/v1/organizations/${s.org.orgId}/agents`;
    const agent = (await s.org.call('POST', agents, { body: { name: 'Looper' } })).body;
    const token = (await s.org.call('POST', `${agents}/${agent.id}/tokens`, { body: { name: 'loop', clientLabel: 'example loop' } })).body.token;
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/members`, { body: { userId: agent.id } });
    const ticket = (await s.org.call('POST', `/api/v1/boards/${s.boardId}/tickets`, { body: { title: 'Write the docs', statusId: s.statuses.IN_PROGRESS.id } })).body.data;

    const run = await runAgentLoop({
      WMS_BASE_URL: inject('baseUrl'),
      WMS_ORG: s.org.slug,
      WMS_TOKEN: token,
      LEASE_SECONDS: '60',
      HEARTBEAT_SECONDS: '1',
      WORK_SECONDS: '2.5',
    });
    expect(run.code, run.output).toBe(0);
    const messages = run.lines.map((line) => line.message);
    expect(messages).toEqual(expect.arrayContaining(['claimed', 'working', 'heartbeat', 'moved to review', 'released', 'finished']));
    expect(messages.indexOf('claimed')).toBeLessThan(messages.indexOf('heartbeat'));
    expect(messages.indexOf('moved to review')).toBeLessThan(messages.indexOf('released'));

    const after = (await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}`)).body.data;
    expect(after.status.id).toBe(s.statuses.IN_REVIEW.id);
    expect(after.claim).toBeNull();
    const timeline = (await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}/timeline?limit=100`)).body.data as { kind: string; details: any }[];
    // The holder is named as itself; the token's client label is the claim's client.
    expect(timeline.find((entry) => entry.kind === 'CLAIMED')!.details).toMatchObject({ claimedByName: 'Looper', client: 'example loop' });
    expect(timeline.find((entry) => entry.kind === 'STATUS_CHANGED' && entry.details.toStatusId === s.statuses.IN_REVIEW.id)!.details.reason).toBe('Done: Write the docs');
    expect(timeline.find((entry) => entry.kind === 'CLAIM_RELEASED')!.details).toMatchObject({ releasedById: agent.id, reason: 'moved to review' });
    // The next holder starts from the handoff and the heartbeat's note.
    const handoffs = (await s.org.call('GET', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}/handoffs`)).body.data;
    expect(handoffs).toEqual([expect.objectContaining({ summary: 'moved to review: Write the docs', lastNote: 'working on LOOP-1', auto: false })]);
  }, 60_000);

  it('obeys a pause, reads a note, resumes, and releases at once with a handoff when stopped mid-run', async () => {
    const s = await boardSetup('Steered loop', 'STR');
    await setPlan(s.org.slug, 'PRO');
    const agent = await createAgent(s.org, { boardIds: [s.boardId], token: { name: 'loop' } });
    const ticket = (await s.org.call('POST', `/api/v1/boards/${s.boardId}/tickets`, { body: { title: 'Long work', statusId: s.statuses.IN_PROGRESS.id } })).body.data;
    const path = `/api/v1/boards/${s.boardId}/tickets/${ticket.id}`;
    const running = runAgentLoop({ WMS_BASE_URL: inject('baseUrl'), WMS_ORG: s.org.slug, WMS_TOKEN: agent.token, LEASE_SECONDS: '60', HEARTBEAT_SECONDS: '0.3', WORK_SECONDS: '25' });
    const claimOf = async () => (await s.org.call('GET', path)).body.data.claim;
    await waitUntil(claimOf, (claim) => claim !== null);
    const direct = async (action: string, message?: string) => expect((await s.org.call('POST', `${path}/claim/directive`, { body: { action, ...(message ? { message } : {}) } })).status).toBe(200);

    await direct('pause', 'Wait for the schema review');
    expect((await s.org.call('POST', `${path}/claim/messages`, { body: { text: 'Schema approved' } })).status).toBe(201);
    // Paused, the loop keeps its lease alive.
    const before = (await waitUntil(claimOf, (claim) => claim?.claimHeartbeatAt != null)).claimHeartbeatAt;
    await waitUntil(claimOf, (claim) => claim?.claimHeartbeatAt !== before);
    await direct('resume');
    // The resume is delivered once, then cleared.
    await waitUntil(claimOf, (claim) => claim?.directive === null);
    await direct('stop', 'Priorities changed');
    const run = await running;
    expect(run.code, run.output).toBe(0);
    const messages = run.lines.map((line) => line.message);
    expect(messages).toEqual(expect.arrayContaining(['paused', 'message', 'resumed', 'stop requested', 'released', 'finished']));
    expect(messages).not.toContain('moved to review');
    expect(run.lines.find((line) => line.message === 'message')).toMatchObject({ text: 'Schema approved' });
    expect(run.lines.find((line) => line.message === 'released')).toMatchObject({ reason: 'stopped' });

    const after = (await s.org.call('GET', path)).body.data;
    expect([after.claim, after.status.id]).toEqual([null, s.statuses.IN_PROGRESS.id]);
    const [handoff] = (await s.org.call('GET', `${path}/handoffs`)).body.data;
    expect(handoff).toMatchObject({ auto: false, summary: expect.stringMatching(/^Stopped at .+'s request \(Priorities changed\); the work was not finished$/) });
  }, 60_000);

  it('takes only work waiting in an ACTIVE status, never a ticket already in review', async () => {
    const s = await boardSetup('Review loop', 'RVW');
    await setPlan(s.org.slug, 'PRO');
    const agent = await createAgent(s.org, { boardIds: [s.boardId], token: { name: 'loop' } });
    await s.org.call('POST', `/api/v1/boards/${s.boardId}/tickets`, { body: { title: 'Awaiting review', statusId: s.statuses.IN_REVIEW.id, priority: 'critical' } });
    const run = await runAgentLoop({ WMS_BASE_URL: inject('baseUrl'), WMS_ORG: s.org.slug, WMS_TOKEN: agent.token });
    expect(run.code, run.output).toBe(0);
    expect(run.lines.map((line) => line.message)).toEqual(['no ready work left', 'finished']);
  });

  it('stops cleanly when there is no ready work', async () => {
    const { s, token } = await idleAgent('Idle loop');
    const run = await runAgentLoop({ WMS_BASE_URL: inject('baseUrl'), WMS_ORG: s.org.slug, WMS_TOKEN: token });
    expect(run.code, run.output).toBe(0);
    expect(run.lines.map((line) => line.message)).toEqual(['no ready work left', 'finished']);
  });

  it('follows PORT when no base URL is given, as the README runs it against npm start', async () => {
    const { s, token } = await idleAgent('Port loop');
    const run = await runAgentLoop({ PORT: new URL(inject('baseUrl')).port, WMS_ORG: s.org.slug, WMS_TOKEN: token });
    expect(run.code, run.output).toBe(0);
    expect(run.lines.map((line) => line.message)).toEqual(['no ready work left', 'finished']);
  });

  it('names the URL it could not reach, instead of a bare "fetch failed"', async () => {
    const run = await runAgentLoop({ WMS_BASE_URL: 'http://127.0.0.1:9', WMS_ORG: 'acme', WMS_TOKEN: 'wma_unused' });
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([expect.objectContaining({ message: 'stopped', code: 'UNREACHABLE', error: expect.stringContaining('Could not reach http://127.0.0.1:9/api/v1/statuses') })]);
  });
});
