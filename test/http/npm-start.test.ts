import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * `npm start` (infra/local/main.ts) as a user runs it: its own DynamoDB Local and local SQS,
 * configured only by environment variables. Each run serves one sign-up, then stops.
 */
async function runNpmStart(env: Record<string, string | undefined>): Promise<string> {
  const childEnv: Record<string, string | undefined> = { ...process.env, PORT: '0', SWEEPER_INTERVAL_SECONDS: '3600', ...env };
  // The test workers point at the shared runtime; `npm start` must start its own.
  for (const name of ['DYNAMODB_ENDPOINT', 'SQS_ENDPOINT', 'TABLE_NAME', 'LOG_REQUESTS']) if (!(name in env)) delete childEnv[name];
  const child = spawn(process.execPath, [resolve('node_modules/tsx/dist/cli.mjs'), 'infra/local/main.ts'], { env: childEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    const baseUrl = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`npm start did not come up:\n${output}`)), 45_000);
      const look = () => {
        const match = /Base URL:\s+(http:\/\/localhost:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          done(match[1]!);
        }
      };
      child.stdout.on('data', look);
      child.once('exit', () => fail(new Error(`npm start exited:\n${output}`)));
    });
    const slug = `start-${Date.now().toString(36)}`;
    const signup = await fetch(`${baseUrl}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organizationName: 'Start', slug, name: 'Ada', email: 'ada@start.test', password: 'correct horse battery' }),
    });
    expect(signup.status).toBe(201);
    return output;
  } finally {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((done) => setTimeout(done, 8000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

const requestLines = (output: string) => output.split('\n').filter((line) => line.includes('"msg":"request"'));

describe('npm start', () => {
  it('honours LOG_REQUESTS=false, and logs each request by default', async () => {
    const [silent, chatty] = await Promise.all([runNpmStart({ LOG_REQUESTS: 'false' }), runNpmStart({})]);
    expect(silent).toContain('Work-management service is running.');
    expect(requestLines(silent)).toEqual([]);
    expect(requestLines(chatty).length).toBeGreaterThan(0);
    expect(requestLines(chatty)[0]).toContain('POST /api/v1/auth/signup');
  }, 120_000);
});
