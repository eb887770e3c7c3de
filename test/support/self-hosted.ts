import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { entityBuilders } from '../../lib/db/schema.js';

/**
 * `npm start` (infra/local/main.ts) with DATA_DIR, as a small team self-hosts it, for tests that
 * kill it and start it again on the same data. Its keys are fixed for the test's life (set
 * with DATA_DIR, as the README says), so what one run sealed or signed the next one reads.
 */
export interface SelfHosted {
  child: ChildProcess;
  baseUrl: string;
  dynamoEndpoint: string;
  output: () => string;
}

/**
 * A fresh DATA_DIR, on a memory file system when the machine has one (/dev/shm). What these tests
 * kill is the process group: the files outlive it there as on a disk, and DynamoDB Local's
 * writes skip the disk's syncs (on the test machine's disk, they made a 5,000-ticket job
 * several times slower).
 */
export function newDataDir(prefix: string): string {
  return mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), prefix));
}

export function fixedKeys() {
  return {
    JWT_SECRET: randomBytes(32).toString('hex'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    OAUTH_SIGNING_KEY_SEED: randomBytes(32).toString('hex'),
    PLATFORM_ADMIN_TOKEN: `wmo_${randomBytes(24).toString('base64url')}`,
  };
}

export async function startSelfHosted(dataDir: string, keys: ReturnType<typeof fixedKeys>, extra: Record<string, string> = {}): Promise<SelfHosted> {
  const env: Record<string, string | undefined> = { ...process.env, ...keys, PORT: '0', DATA_DIR: dataDir, SWEEPER_INTERVAL_SECONDS: '3600', LOG_REQUESTS: 'false', ...extra };
  // The test workers point at the shared runtime; this server starts its own.
  for (const name of ['DYNAMODB_ENDPOINT', 'SQS_ENDPOINT', 'TABLE_NAME', 'LOG_FORMAT', 'DEFAULT_ORGANIZATION']) delete env[name];
  // Its own process group: a kill takes DynamoDB Local's JVM with it, as a power cut would.
  const child = spawn(process.execPath, [resolve('node_modules/tsx/dist/cli.mjs'), 'infra/local/main.ts'], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [baseUrl, dynamoEndpoint] = await new Promise<[string, string]>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the server did not come up:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      const base = /Base URL:\s+(http:\/\/localhost:\d+)/.exec(output);
      const dynamo = /DynamoDB Local:\s+(http:\/\/\S+)/.exec(output);
      if (base && dynamo) {
        clearTimeout(timer);
        done([base[1]!, dynamo[1]!]);
      }
    });
    child.once('exit', () => fail(new Error(`the server exited:\n${output}`)));
  });
  return { child, baseUrl, dynamoEndpoint, output: () => output };
}

/** SIGKILL to the whole process group; resolves once it is gone. */
export async function killSelfHosted(server: SelfHosted): Promise<void> {
  const exited = new Promise<void>((done) => (server.child.exitCode !== null ? done() : server.child.once('exit', () => done())));
  try {
    process.kill(-server.child.pid!, 'SIGKILL');
  } catch {
    // gone already
  }
  await exited;
  // Give the OS a moment to release DynamoDB Local's files and port.
  await new Promise((done) => setTimeout(done, 500));
}

/** The server's table as ElectroDB entities (for seeding large data and reading it back). */
export function entitiesOf(server: SelfHosted) {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: server.dynamoEndpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const configuration = { client, table: 'work-management' };
  return {
    ticket: entityBuilders.ticket(configuration),
    ticketKey: entityBuilders.ticketKey(configuration),
    columnCount: entityBuilders.columnCount(configuration),
    milestone: entityBuilders.milestone(configuration),
    board: entityBuilders.board(configuration),
    destroy: () => client.destroy(),
  };
}

/** A JSON call to the server as an organization's member. */
export function caller(server: () => SelfHosted, slug: string, token: () => string) {
  return async (method: string, path: string, body?: unknown, bearer = token()): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${server().baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'x-organization': slug, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}
