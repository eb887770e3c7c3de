import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { startDeliveryRuntime } from '../support/delivery-runtime.js';

/*
 * The README's walkthrough ("First five minutes") is run as written: every ```bash block of the
 * section, in order, in one bash, against the local runtime. A wrapper around curl records each
 * response's status without changing what the commands print or capture.
 */
function walkthroughBlocks(heading = '## First five minutes'): string[] {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf(heading);
  const level = heading.slice(0, heading.indexOf(' ') + 1);
  const end = readme.indexOf(`\n${level}`, start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** Runs bash blocks in one shell against a runtime (PORT and the operator token as `npm start` gives them). */
function runBlocks(blocks: string[], runtime: { baseUrl: string; platformAdminToken: string }, dir: string, env: Record<string, string> = {}) {
  const script = ['set -euo pipefail', CURL_RECORDER, ...blocks].join('\n');
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { cwd: process.cwd(), env: { PATH: process.env.PATH ?? '', HOME: dir, PORT: new URL(runtime.baseUrl).port, PLATFORM_TOKEN: runtime.platformAdminToken, STATUS_LOG: path.join(dir, 'statuses'), ...env }, timeout: 150_000 },
      (error, out, err) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
    );
  });
}

const CURL_RECORDER = `
curl() {
  local out
  out=$(command curl -sS -w '\\n%{http_code}' "$@")
  printf '%s %s\\n' "\${out##*$'\\n'}" "$*" >> "$STATUS_LOG"
  printf '%s\\n' "\${out%$'\\n'*}"
}
`;

describe('the README walkthrough', () => {
  it('runs as pasted, every request succeeding except the one refusal it announces', async () => {
    const blocks = walkthroughBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const dir = mkdtempSync(path.join(tmpdir(), 'walkthrough-'));
    const statusLog = path.join(dir, 'statuses');
    try {
      const { code, stdout, stderr } = await runBlocks(blocks, { baseUrl: inject('baseUrl'), platformAdminToken: inject('platformAdminToken') }, dir);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      const statuses = readFileSync(statusLog, 'utf8').trim().split('\n').map((line) => ({ status: Number(line.split(' ')[0]), request: line.slice(line.indexOf(' ') + 1) }));
      expect(statuses.length).toBeGreaterThan(20);
      const refused = statuses.filter((entry) => entry.status >= 400);
      expect(refused).toHaveLength(1);
      expect(refused[0]!.status).toBe(403);
      expect(refused[0]!.request).toContain('/status');
      expect(stdout).toContain('AGENT_APPROVAL_REQUIRED');
      expect(stdout).toContain('"alreadyHeld":false');
      // The wiki search finds the edited page (version 2 of 2).
      expect(stdout).toContain('"title":"Runbook","folderId":null,"snippet":"Restart the canary first, then the fleet."');
      expect(stdout).toMatch(/"data":\[\{"id":"wpv_\w+","pageId":"wpg_\w+","number":2,"title":"Runbook"/);
      // The milestone counts the finished ticket; the release holds it.
      expect(stdout).toContain('"progress":{"total":1,"completed":1,"percentage":100}');
      expect(stdout).toMatch(/"name":"Spring","version":"2\.4\.0".*"milestones":\[\{"id":"ms_\w+","name":"Beta"\}\],"ticketCount":1/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('runs the local receiver block after it, on a runtime started with WEBHOOK_ALLOW_LOOPBACK=true', async () => {
    const runtime = await startDeliveryRuntime('wm-readme-receiver');
    const dir = mkdtempSync(path.join(tmpdir(), 'walkthrough-receiver-'));
    const receiverPort = await freePort();
    try {
      const receiverBlocks = walkthroughBlocks('### A receiver on your machine');
      expect(receiverBlocks).toHaveLength(1);
      const { code, stdout, stderr } = await runBlocks([...walkthroughBlocks(), ...receiverBlocks], runtime, dir, { RECEIVER_PORT: String(receiverPort) });
      expect(code, stderr).toBe(0);
      const received = stdout.split('\n').filter((line) => line.startsWith('{"received"')).map((line) => JSON.parse(line));
      expect(received).toEqual([{ received: 'ticket.created', deliveryId: expect.stringMatching(/^dlv_/), verified: true, data: expect.objectContaining({ ticketId: expect.any(String) }) }]);
      expect(stderr).toContain(`Receiving webhooks at http://127.0.0.1:${receiverPort}/hooks`);
    } finally {
      await runtime.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('a walkthrough block that meets a refusal', () => {
  it('refuses to go on with an empty value: pasting block 1 twice stops at the refused sign-up and shows the API error', async () => {
    const [first] = walkthroughBlocks();
    const dir = mkdtempSync(path.join(tmpdir(), 'walkthrough-twice-'));
    try {
      // Pasted as a person pastes: no errexit, so only the block's own chaining stops it.
      const { stderr } = await runBlocks([first!, 'set +e', first!], { baseUrl: inject('baseUrl'), platformAdminToken: inject('platformAdminToken') }, dir);
      const statuses = readFileSync(path.join(dir, 'statuses'), 'utf8').trim().split('\n');
      const last = statuses.at(-1)!;
      // The second paste's sign-up is refused (the slug is taken), and nothing is sent after it.
      expect(Number(last.split(' ')[0])).toBeGreaterThanOrEqual(400);
      expect(last).toContain('/api/v1/auth/signup');
      expect(stderr).toContain('refused: {"error":');
      expect(statuses.join('\n')).not.toContain('undefined');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
