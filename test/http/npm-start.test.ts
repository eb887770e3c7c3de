import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

type Call = (method: string, path: string, options?: { token?: string; body?: unknown; org?: string }) => Promise<{ status: number; body: any }>;

/**
 * `npm start` (infra/local/main.ts) as a user runs it: its own DynamoDB Local and local SQS,
 * configured only by environment variables. Each run plays `scenario` against it, then stops,
 * and answers everything the process printed.
 */
async function runNpmStart(env: Record<string, string | undefined>, scenario: (call: Call, output: () => string) => Promise<void>): Promise<string> {
  const childEnv: Record<string, string | undefined> = { ...process.env, PORT: '0', SWEEPER_INTERVAL_SECONDS: '3600', ...env };
  // The test workers point at the shared runtime; `npm start` must start its own.
  for (const name of ['DYNAMODB_ENDPOINT', 'SQS_ENDPOINT', 'TABLE_NAME', 'LOG_REQUESTS', 'LOG_FORMAT', 'DEFAULT_ORGANIZATION']) if (!(name in env)) delete childEnv[name];
  // Its own process group: whatever it started (DynamoDB Local's JVM) can be stopped with it.
  const child = spawn(process.execPath, [resolve('node_modules/tsx/dist/cli.mjs'), 'infra/local/main.ts'], { env: childEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    const baseUrl = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`npm start did not come up:\n${output}`)), 60_000);
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
    const call: Call = async (method, path, options = {}) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(options.org ? { 'x-organization': options.org } : {}),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };
    await scenario(call, () => output);
    return output;
  } finally {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((done) => setTimeout(done, 8000))]);
    // Whatever did not stop by itself, the whole group with it.
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }
}

const signUp = async (call: Call, slug: string, password = 'correct horse battery') => {
  const signup = await call('POST', '/api/v1/auth/signup', { body: { organizationName: 'Start', slug, name: 'Ada', email: `ada@${slug}.test`, password } });
  expect(signup.status).toBe(201);
  return signup.body as { token: string; organization: { id: string } };
};

async function until(condition: () => boolean, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}:\n${output()}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** A webhook receiver on loopback that answers 204 and counts what it got. */
async function receiver(): Promise<{ server: Server; url: string; received: () => number }> {
  let count = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received: () => count };
}

const textRequestLines = (output: string) => output.split('\n').filter((line) => /^\d\d:\d\d:\d\d\.\d{3} request /.test(line));
const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);

describe('npm start', () => {
  it('honours LOG_REQUESTS=false, and logs each request by default, one readable line each', async () => {
    const [silent, chatty] = await Promise.all([
      runNpmStart({ LOG_REQUESTS: 'false' }, (call) => signUp(call, `quiet-${Date.now().toString(36)}`).then(() => undefined)),
      runNpmStart({}, (call) => signUp(call, `chatty-${Date.now().toString(36)}`).then(() => undefined)),
    ]);
    expect(silent).toContain('Work-management service is running.');
    // This machine only unless HOST says otherwise, and one line to paste that sets the port and the operator token.
    const port = /Base URL:\s+http:\/\/localhost:(\d+)/.exec(silent)![1];
    expect(silent).toMatch(new RegExp(`Listening on:\\s+127\\.0\\.0\\.1:${port} \\(this machine only`));
    expect(silent).toMatch(new RegExp(`\\n  export PORT=${port} PLATFORM_TOKEN=wmo_\\S+\\n`));
    expect(silent).not.toContain('(export ');
    // The MCP URL a Node client reaches with no header: the walkthrough's organization by default.
    expect(silent).toMatch(new RegExp(`MCP server:\\s+http://localhost:${port}/api/v1/mcp\\s+\\(organization 'acme' with no header`));
    expect(textRequestLines(silent)).toEqual([]);
    const [line] = textRequestLines(chatty);
    expect(line).toMatch(/ request requestId=\S+ route="POST \/api\/v1\/auth\/signup" status=201 ms=\d+ dbRoundTrips=\d+ dbReadUnits=[\d.]+ dbWriteUnits=[\d.]+ coldStart=true$/);
    // No metrics in the readable format.
    expect(chatty).not.toContain('"_aws"');
  }, 150_000);

  it('with LOG_FORMAT=json prints what Lambda prints: a JSON line per request and delivery attempt, EMF metrics, and none of the secrets the run used', async () => {
    const hook = await receiver();
    const secrets: Record<string, string> = {};
    try {
      const platformToken = `wmo_${Date.now().toString(36)}platform`;
      const output = await runNpmStart({ LOG_FORMAT: 'json', WEBHOOK_ALLOW_LOOPBACK: 'true', PLATFORM_ADMIN_TOKEN: platformToken }, async (call, printed) => {
        const slug = `secret-${Date.now().toString(36)}`;
        secrets.password = 'a very private passphrase 7731';
        const { token: session } = await signUp(call, slug, secrets.password);
        secrets.session = session;
        const org = slug;
        // Webhooks come with the PRO plan.
        expect((await call('PATCH', `/api/v1/platform/organizations/${slug}`, { token: platformToken, body: { plan: 'PRO' } })).status).toBe(200);
        const login = await call('POST', '/api/v1/auth/login', { org, body: { email: `ada@${slug}.test`, password: secrets.password } });
        expect(login.status).toBe(200);
        expect((await call('POST', '/api/v1/auth/login', { org, body: { email: `ada@${slug}.test`, password: 'wrong guess 5512' } })).status).toBe(401);
        secrets.wrongPassword = 'wrong guess 5512';
        const pat = await call('POST', '/api/v1/users/me/tokens', { org, token: session, body: { name: 'laptop' } });
        expect(pat.status).toBe(201);
        secrets.personalToken = pat.body.token;
        const endpoint = await call('POST', '/api/v1/webhook-endpoints', {
          org,
          token: session,
          body: { name: 'Receiver', url: `${hook.url}/hook?access_token=url-secret-4410`, events: ['ticket.created'] },
        });
        expect(endpoint.status).toBe(201);
        secrets.webhookSecret = endpoint.body.secret;
        secrets.urlSecret = 'url-secret-4410';
        const board = await call('POST', '/api/v1/boards', { org, token: pat.body.token, body: { name: 'Secrets' } });
        expect(board.status).toBe(201);
        secrets.description = 'the launch code is 0000 and nobody may know it';
        const ticket = await call('POST', `/api/v1/boards/${board.body.id}/tickets`, { org, token: session, body: { title: 'Quiet', description: secrets.description } });
        expect(ticket.status).toBe(201);
        secrets.comment = 'a comment body that must stay out of logs';
        expect((await call('POST', `/api/v1/boards/${board.body.id}/tickets/${ticket.body.data.id}/comments`, { org, token: session, body: { content: secrets.comment } })).status).toBe(201);
        const space = await call('POST', '/api/v1/wiki/spaces', { org, token: session, body: { name: 'Handbook' } });
        expect(space.status).toBe(201);
        secrets.pageContent = 'wiki page content that is nobody else\'s business';
        expect((await call('POST', `/api/v1/wiki/spaces/${space.body.id}/pages`, { org, token: session, body: { title: 'Private', content: secrets.pageContent, isPublished: true } })).status).toBe(201);
        await until(() => hook.received() > 0 && printed().includes('"message":"delivery attempt"'), 'the webhook delivery', printed);
      });

      const lines = jsonLines(output);
      const requests = lines.filter((line) => line.message === 'request');
      const signup = requests.find((line) => line.route === 'POST /api/v1/auth/signup')!;
      expect(signup).toMatchObject({ level: 'INFO', service: 'work-management', status: 201, coldStart: true, requestId: expect.any(String), ms: expect.any(Number), dbRoundTrips: expect.any(Number), dbReadUnits: expect.any(Number), dbWriteUnits: expect.any(Number) });
      const comment = requests.find((line) => line.route === 'POST /api/v1/boards/{boardId}/tickets/{ticketId}/comments')!;
      expect(comment).toMatchObject({ status: 201, coldStart: false, orgId: expect.stringMatching(/^org_/), actorId: expect.stringMatching(/^usr_/) });
      expect(lines.find((line) => line.message === 'delivery attempt')).toMatchObject({ success: true, statusCode: 204, attempt: 1, eventType: 'ticket.created' });
      // Embedded-metric-format lines CloudWatch turns into metrics: requests by status class, webhook attempts.
      const emf = lines.filter((line) => line._aws);
      expect(emf.find((line) => line.Requests === 1 && line.statusClass === '2xx')).toMatchObject({ service: 'work-management', function: 'local', Latency: expect.any(Number) });
      expect(emf.find((line) => line.statusClass === '4xx')).toBeDefined();
      expect(emf.find((line) => line.WebhookAttempts === 1)).toBeDefined();

      expect(Object.keys(secrets)).toHaveLength(9);
      for (const [name, secret] of Object.entries(secrets)) {
        expect(secret, name).toBeTruthy();
        expect(output.includes(secret), `${name} appears in the logs`).toBe(false);
      }
    } finally {
      hook.server.close();
    }
  }, 150_000);
});
