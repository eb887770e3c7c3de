import { expect, inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Dispatch } from '../../infra/local/api-gateway.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  /** DynamoDB round trips the request made (local runtime, EXPOSE_ROUND_TRIPS). */
  roundTrips: number;
}

export interface RequestOptions {
  token?: string;
  org?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

let runtimeOverride: { baseUrl: string; platformAdminToken: string } | undefined;
let inProcess: Promise<Dispatch> | undefined;

/**
 * Sends this test file's requests in process, through the same route table, API Gateway stand-in
 * and handlers as the shared runtime, with its environment and its DynamoDB Local, but without
 * a socket (hono's `app.request` habit). For the large matrices of permissions, restrictions and
 * validation; what needs HTTP itself (status lines, header limits, the browser) stays on the wire.
 * The shared runtime still runs the stream consumer, the queues and the schedule for these writes.
 */
export function useInProcess(): void {
  // Imported here, not at the top: only the files that use it load every route group.
  inProcess ??= (async () => {
    const [{ createDispatcher }, { applyFunctionEnvironment, loadHttpRoutes }] = await Promise.all([import('../../infra/local/api-gateway.js'), import('../../infra/local/runtime.js')]);
    applyFunctionEnvironment(inject('runtimeEnv'));
    return createDispatcher(await loadHttpRoutes());
  })();
}

/**
 * Sends this test file's requests to a runtime of its own (started with settings the shared
 * one must not have, such as loopback webhook URLs and a short retry schedule).
 */
export function useRuntime(runtime: { baseUrl: string; platformAdminToken: string }): void {
  runtimeOverride = runtime;
}

/** The runtime this test file talks to. */
export const baseUrl = (): string => runtimeOverride?.baseUrl ?? inject('baseUrl');
const platformToken = () => runtimeOverride?.platformAdminToken ?? inject('platformAdminToken');

/** One real HTTP request to the local runtime. */
export async function api<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.org) headers['x-organization'] = options.org;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const url = new URL(path, baseUrl());
  const response = inProcess ? await sendInProcess(await inProcess, method, url, headers, body) : await send(method, url, headers, body);
  return {
    status: response.status,
    body: response.text ? JSON.parse(response.text) : undefined,
    headers: response.headers,
    roundTrips: Number(response.headers.get('x-db-round-trips') ?? NaN),
  };
}

/** The request as the HTTP server would read it, handed to the dispatcher (see useInProcess). */
async function sendInProcess(dispatch: Dispatch, method: string, url: URL, given: Record<string, string>, body: string | undefined) {
  const headers: Record<string, string> = { host: url.host };
  for (const [name, value] of Object.entries(given)) headers[name.toLowerCase()] = value;
  // The shared runtime trusts X-Forwarded-For (tests act as several clients with it).
  const sourceIp = headers['x-forwarded-for']?.split(',')[0]?.trim() || '127.0.0.1';
  const result = await dispatch({ method, url: `${url.pathname}${url.search}`, headers, body: Buffer.from(body ?? '', 'utf8'), sourceIp });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(result.headers ?? {})) responseHeaders.set(name, String(value));
  for (const cookie of result.cookies ?? []) responseHeaders.append('set-cookie', cookie);
  const text = result.body === undefined ? '' : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8').toString('utf8');
  return { status: result.statusCode ?? 200, text, headers: responseHeaders };
}

/** node:http rather than fetch, so tests can set the Host header (organization by subdomain). */
function send(method: string, url: URL, headers: Record<string, string>, body: string | undefined) {
  return new Promise<{ status: number; text: string; headers: Headers }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) responseHeaders.set(name, String(value));
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: responseHeaders });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const uniqueSlug = (base = 'org'): string => `${base}-${randomBytes(4).toString('hex')}`;

export interface TestOrg {
  slug: string;
  orgId: string;
  adminToken: string;
  adminId: string;
  /** Calls the API as this organization's administrator (or with another token of it). */
  call<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
}

/** Signs up a fresh organization (isolates a test file from all others). */
export async function signupOrg(overrides: Partial<{ slug: string; name: string; email: string; password: string }> = {}): Promise<TestOrg> {
  const slug = overrides.slug ?? uniqueSlug();
  const password = overrides.password ?? 'correct horse battery';
  const response = await api('POST', '/api/v1/auth/signup', {
    body: { organizationName: `Org ${slug}`, slug, name: overrides.name ?? 'Ada Admin', email: overrides.email ?? `admin@${slug}.test`, password },
  });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${JSON.stringify(response.body)}`);
  const adminToken = response.body.token as string;
  return {
    slug,
    orgId: response.body.organization.id,
    adminToken,
    adminId: response.body.user.id,
    call: (method, path, options = {}) => api(method, path, { token: adminToken, org: slug, ...options }),
  };
}

/** Sets an organization's plan as the platform operator. */
export async function setPlan(slug: string, plan: 'FREE' | 'PRO' | 'ENTERPRISE'): Promise<void> {
  const response = await api('PATCH', `/api/v1/platform/organizations/${slug}`, { token: platformToken(), body: { plan } });
  if (response.status !== 200) throw new Error(`setPlan failed: ${response.status} ${JSON.stringify(response.body)}`);
}

export interface OutboxMail {
  id: string;
  to: string;
  subject: string;
  text: string;
  link: string;
  sentAt: string;
}

/** The organization's outbox (mail kept while no mail service is configured), newest first, read as the platform operator. */
export async function outbox(slug: string): Promise<OutboxMail[]> {
  const response = await api('GET', `/api/v1/platform/organizations/${slug}/outbox?limit=100`, { token: platformToken() });
  if (response.status !== 200) throw new Error(`outbox failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** The `token` of the newest link mailed to `to`. */
export async function mailedToken(slug: string, to: string): Promise<{ token: string; link: URL; mail: OutboxMail }> {
  const mail = (await outbox(slug)).find((item) => item.to === to);
  if (!mail) throw new Error(`no mail to ${to}`);
  const link = new URL(mail.link);
  return { token: link.searchParams.get('token')!, link, mail };
}

/** Creates a user in the organization and signs them in; returns their id and session token. */
export async function createMember(
  org: TestOrg,
  overrides: Partial<{ name: string; email: string; role: 'ADMIN' | 'TEAM_MEMBER' | 'CUSTOMER'; customerId: string; permissionGroupIds: string[] }> = {},
): Promise<{ id: string; token: string; email: string }> {
  const email = overrides.email ?? `user-${randomBytes(3).toString('hex')}@${org.slug}.test`;
  const password = 'member password 1';
  const created = await org.call('POST', '/api/v1/users', {
    body: { name: overrides.name ?? 'Member', email, password, role: overrides.role ?? 'TEAM_MEMBER', customerId: overrides.customerId, permissionGroupIds: overrides.permissionGroupIds },
  });
  if (created.status !== 201) throw new Error(`create user failed: ${created.status} ${JSON.stringify(created.body)}`);
  const login = await api('POST', '/api/v1/auth/login', { org: org.slug, body: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return { id: created.body.id, token: login.body.token, email };
}

/** Mints a personal access token for the given session. */
export async function createToken(org: TestOrg, sessionToken: string, body: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const response = await api('POST', '/api/v1/users/me/tokens', { token: sessionToken, org: org.slug, body: { name: 'test token', ...body } });
  if (response.status !== 201) throw new Error(`create token failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { id: response.body.id, token: response.body.token };
}

/** Asserts a 400 VALIDATION_ERROR whose issues name `field`. */
export function expectValidationError(response: ApiResponse, field: string): void {
  expect(response.status).toBe(400);
  expect(response.body.error.code).toBe('VALIDATION_ERROR');
  expect(response.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(field);
}
