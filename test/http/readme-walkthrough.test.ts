import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, inject, it } from 'vitest';

/*
 * The README's walkthrough ("First five minutes") is run as written: every ```bash block of the
 * section, in order, in one bash, against the local runtime. A wrapper around curl records each
 * response's status without changing what the commands print or capture.
 */
function walkthroughBlocks(): string[] {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('## First five minutes');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]!);
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
      const script = ['set -euo pipefail', CURL_RECORDER, ...blocks].join('\n');
      const port = new URL(inject('baseUrl')).port;
      const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '', HOME: dir, PORT: port, PLATFORM_TOKEN: inject('platformAdminToken'), STATUS_LOG: statusLog }, timeout: 60_000 }, (error, out, err) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
        );
      });
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
  }, 90_000);
});
