import { request as httpRequest } from 'node:http';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'puppeteer-core';

/**
 * An independent OAuth client for tests: oauth4webapi, speaking real HTTP to the local runtime.
 * Its fetch resolves every host to the loopback address (Node does not resolve `*.localhost`,
 * browsers do), so requests carry the organization's own Host, and it sends a fixed
 * `X-Forwarded-For`, so each test file is a client address of its own for the per-IP limits.
 */
export function oauthFetch(sourceIp: string | 'a fresh address per request' = randomAddress()) {
  return (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = { 'x-forwarded-for': sourceIp === 'a fresh address per request' ? randomAddress() : sourceIp };
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init.body === undefined || init.body === null ? undefined : init.body instanceof URLSearchParams ? init.body.toString() : String(init.body);
    if (init.body instanceof URLSearchParams) headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: init.method ?? 'GET',
          headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
          lookup: ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
            options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as never,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
              else if (value !== undefined) responseHeaders.set(name, value);
            }
            const status = res.statusCode ?? 0;
            const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks);
            resolve(new Response(payload, { status, headers: responseHeaders }));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}

export type OAuthFetch = ReturnType<typeof oauthFetch>;

const randomAddress = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

/** oauth4webapi options for the local runtime: plain HTTP on loopback, our fetch. */
export const clientOptions = (fetch: OAuthFetch) => ({ [oauth.customFetch]: fetch as typeof globalThis.fetch, [oauth.allowInsecureRequests]: true });

export async function discover(origin: string, fetch: OAuthFetch): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(origin);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...clientOptions(fetch), algorithm: 'oauth2' }));
}

export interface AuthorizationParams {
  clientId: string;
  redirectUri: string;
  codeChallenge?: string;
  state?: string;
  scope?: string;
  resource?: string;
  extra?: Record<string, string>;
}

export function authorizationUrl(as: oauth.AuthorizationServer, params: AuthorizationParams): URL {
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', params.clientId);
  url.searchParams.set('redirect_uri', params.redirectUri);
  if (params.codeChallenge) {
    url.searchParams.set('code_challenge', params.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  if (params.state !== undefined) url.searchParams.set('state', params.state);
  if (params.scope !== undefined) url.searchParams.set('scope', params.scope);
  if (params.resource !== undefined) url.searchParams.set('resource', params.resource);
  for (const [name, value] of Object.entries(params.extra ?? {})) url.searchParams.set(name, value);
  return url;
}

/** Where the browser was sent back to: the first navigation to the client's redirect URI (answered here, never reaching a server). */
export async function completeInBrowser(
  browser: Browser,
  url: URL,
  redirectPrefix: string,
  actions: { email?: string; password?: string; decision?: 'Allow' | 'Deny' } = {},
): Promise<URL> {
  const context = await browser.createBrowserContext();
  try {
    return await completeInPage(await context.newPage(), url, redirectPrefix, actions);
  } finally {
    await context.close();
  }
}

export async function completeInPage(
  page: import('puppeteer-core').Page,
  url: URL,
  redirectPrefix: string,
  actions: { email?: string; password?: string; decision?: 'Allow' | 'Deny' } = {},
): Promise<URL> {
  let callback: URL | undefined;
  await page.setRequestInterception(true);
  page.removeAllListeners('request');
  page.on('request', (request) => {
    if (request.url().startsWith(redirectPrefix)) {
      callback = new URL(request.url());
      void request.respond({ status: 200, contentType: 'text/plain', body: 'done' });
      return;
    }
    void request.continue();
  });
  await page.goto(url.toString(), { waitUntil: 'load' });
  if (await page.$('input[name=password]')) {
    await page.type('#email', actions.email ?? '');
    await page.type('#password', actions.password ?? '');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
  }
  if (!callback) {
    const label = actions.decision ?? 'Allow';
    const [button] = await page.$$(`xpath/.//button[normalize-space()="${label}"]`);
    if (!button) throw new Error(`No ${label} button on ${page.url()}: ${(await page.content()).slice(0, 500)}`);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), button.click()]);
  }
  if (!callback) throw new Error(`The browser was not sent back to ${redirectPrefix}; it is at ${page.url()}`);
  return callback;
}

const hidden = (html: string, name: string): string | undefined => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

/**
 * The authorization pages driven over plain HTTP, as a browser would submit their forms
 * (the browser itself is exercised in oauth-flow.test.ts): sign in if asked, then Allow or
 * Deny. Returns where the service sent the user back, and the session cookie for later calls.
 */
export async function authorizeOverHttp(
  fetch: OAuthFetch,
  url: URL,
  user: { email: string; password: string },
  options: { decision?: 'allow' | 'deny'; cookie?: string } = {},
): Promise<{ location: URL | undefined; status: number; cookie: string | undefined; html: string }> {
  let cookie = options.cookie;
  const get = (target: URL) => fetch(target, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
  let response = await get(url);
  if (response.status === 302) return { location: new URL(response.headers.get('location')!), status: 302, cookie, html: '' };
  let html = await response.text();
  if (response.status !== 200) return { location: undefined, status: response.status, cookie, html };
  if (html.includes('name="password"')) {
    const form = new URLSearchParams({ request: hidden(html, 'request')!, email: user.email, password: user.password });
    const signIn = await fetch(new URL('/api/v1/oauth/authorize/sign-in', url), { method: 'POST', body: form, redirect: 'manual' });
    if (signIn.status !== 303) return { location: undefined, status: signIn.status, cookie, html: await signIn.text() };
    cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    response = await get(new URL(signIn.headers.get('location')!, url));
    html = await response.text();
  }
  const form = new URLSearchParams({ request: hidden(html, 'request')!, csrf: hidden(html, 'csrf')!, decision: options.decision ?? 'allow' });
  const consent = await fetch(new URL('/api/v1/oauth/authorize/consent', url), { method: 'POST', body: form, headers: { cookie: cookie! }, redirect: 'manual' });
  return { location: consent.headers.get('location') ? new URL(consent.headers.get('location')!) : undefined, status: consent.status, cookie, html: await consent.text() };
}

/** A self-signed certificate for 127.0.0.1 (openssl), for an HTTPS metadata document server on loopback. */
export function selfSignedCertificate(dir: string): { key: string; cert: string } {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`], { stdio: 'ignore' });
  return { key: readFileSync(`${dir}/key.pem`, 'utf8'), cert: readFileSync(`${dir}/cert.pem`, 'utf8') };
}

export interface TestGrant {
  origin: string;
  clientId: string;
  clientSecret: string;
  grantId: string;
  accessToken: string;
  refreshToken: string;
  redirectUri: string;
}

/** The PKCE pair of a test authorization. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

/**
 * A registered client and a grant of an organization's administrator (sign-up password), made
 * through the real endpoints over HTTP: registration, the authorization pages, the code exchange.
 */
export async function createGrant(org: { slug: string; adminToken: string }, baseUrl: string, fetch: OAuthFetch = oauthFetch()): Promise<TestGrant> {
  const origin = `http://${org.slug}.localhost:${new URL(baseUrl).port}`;
  const redirectUri = 'http://127.0.0.1/fixture-callback';
  const registered = await fetch(`${origin}/api/v1/oauth/register`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Fixture client', redirect_uris: [redirectUri] }),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const client = (await registered.json()) as { client_id: string; client_secret: string };
  const code = await codeFor(fetch, origin, client.client_id, redirectUri, { email: `admin@${org.slug}.test`, password: 'correct horse battery' });
  const tokens = await fetch(`${origin}/api/v1/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code.code, redirect_uri: redirectUri, client_id: client.client_id, client_secret: client.client_secret, code_verifier: code.verifier }),
  });
  if (tokens.status !== 200) throw new Error(`token: ${tokens.status} ${await tokens.text()}`);
  const body = (await tokens.json()) as { access_token: string; refresh_token: string };
  const grants = await fetch(`${origin}/api/v1/oauth/grants`, { headers: { authorization: `Bearer ${org.adminToken}` } });
  const grant = ((await grants.json()) as { data: { id: string; clientId: string }[] }).data.find((entry) => entry.clientId === client.client_id)!;
  return { origin, clientId: client.client_id, clientSecret: client.client_secret, grantId: grant.id, accessToken: body.access_token, refreshToken: body.refresh_token, redirectUri };
}

/** A fresh authorization code (and its verifier) for a registered client, through the pages over HTTP. */
export async function codeFor(fetch: OAuthFetch, origin: string, clientId: string, redirectUri: string, user: { email: string; password: string }, cookie?: string) {
  const { verifier, challenge } = await pkcePair();
  const url = new URL(`${origin}/api/v1/oauth/authorize`);
  url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 'fixture-state' }).toString();
  const done = await authorizeOverHttp(fetch, url, user, cookie ? { cookie } : {});
  const code = done.location?.searchParams.get('code');
  if (!code) throw new Error(`no code: ${done.status} ${done.location} ${done.html.slice(0, 300)}`);
  return { code, verifier, cookie: done.cookie };
}

/**
 * A file's own local runtime for the OAuth tests, on the shared DynamoDB Local: loopback
 * outbound requests admitted (metadata documents served from 127.0.0.1), client addresses
 * taken from X-Forwarded-For (each test acts as its own address for the per-IP limits).
 */
export async function startOAuthRuntime(tableName: string, dynamoEndpoint: string) {
  const { startLocalRuntime } = await import('../../infra/local/runtime.js');
  return startLocalRuntime({ credentialRateLimit: 0, port: 0, dynamoEndpoint, tableName, logRequests: false, validateResponses: true, sweeperIntervalSeconds: 3600, webhookAllowLoopback: true, trustForwardedFor: true });
}

/** An HTTPS server on 127.0.0.1 (self-signed) serving Client ID Metadata Documents by path. */
export async function startDocumentServer(dir: string) {
  const { createServer } = await import('node:https');
  const documents = new Map<string, { status?: number; headers?: Record<string, string>; body: string }>();
  const server = createServer(selfSignedCertificate(dir), (req, res) => {
    const document = documents.get(req.url ?? '');
    if (!document) return void res.writeHead(404).end();
    res.writeHead(document.status ?? 200, { 'content-type': 'application/json', 'cache-control': 'max-age=600', ...document.headers });
    res.end(document.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { base, documents, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
