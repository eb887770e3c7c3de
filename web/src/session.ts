/**
 * Signing in (docs/console.md, "Signing in"). The console is a public OAuth client of its own
 * organization's authorization server (client_id `console`, PKCE S256), as OAuth 2.0 for
 * Browser-Based Apps describes a browser-based client: its tokens live in this module's memory
 * only, never in localStorage, sessionStorage or a cookie script can read, and end with the tab.
 * The sign-in itself is the server's: its page sets an HttpOnly cookie on /api/v1/oauth, so a new
 * tab or a reload gets fresh tokens from the authorization endpoint without asking again
 * (`authorize` below, a same-origin fetch that follows the redirect back to /app). A person who is
 * not signed in goes to the sign-in page and comes back to where they were (the path travels in
 * `state`; the code that comes back with it is not used, since its verifier was in the memory of
 * the page that left: the console asks again, now signed in).
 */

const meta = (name: string): string => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The organization this console serves, and whether this origin is shared (localhost: the
 * organization goes in `X-Organization`): the page names it; on a shared origin the address's
 * `?org=` does too, which is how it survives the sign-in's return (the path travels in `state`).
 */
export const organization = { slug: '', sharedOrigin: false };

/** At start, before anything reads `organization`: the sign-in's return taken out of the address, then the organization. */
export function locateOrganization(): void {
  returnFromSignIn();
  organization.sharedOrigin = meta('wm-shared-origin') === 'true';
  const named = new URLSearchParams(location.search).get('org') ?? '';
  organization.slug = meta('wm-organization') || (organization.sharedOrigin && SLUG.test(named) ? named : '');
}

const CLIENT_ID = 'console';
const SCOPE = 'read write admin';
const redirectUri = (): string => `${location.origin}/app`;

interface Tokens {
  accessToken: string;
  refreshToken: string;
}
let tokens: Tokens | undefined;
/** Set once signing out begins: from then on nothing renews, so no new grant outlives the sign-out. */
let signingOut = false;

const base64url = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const randomText = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** Headers every API call of this console sends: the organization on a shared origin. */
export function organizationHeaders(): Record<string, string> {
  return organization.sharedOrigin && organization.slug ? { 'x-organization': organization.slug } : {};
}

/** The authorization request for a verifier; `returnTo` rides in `state` when the person must sign in; `loginHint` fills the e-mail. */
async function authorizeUrl(verifier: string, returnTo: string, loginHint?: string): Promise<string> {
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: SCOPE,
    state: `${randomText()}.${base64url(new TextEncoder().encode(returnTo))}`,
  });
  if (organization.sharedOrigin && organization.slug) params.set('org', organization.slug);
  if (loginHint) params.set('login_hint', loginHint);
  return `/api/v1/oauth/authorize?${params}`;
}

async function tokenRequest(fields: Record<string, string>): Promise<Tokens | undefined> {
  const response = await fetch('/api/v1/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...organizationHeaders() },
    body: new URLSearchParams({ client_id: CLIENT_ID, ...fields }),
    credentials: 'omit',
  });
  if (!response.ok) return undefined;
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  return { accessToken: body.access_token, refreshToken: body.refresh_token };
}

/**
 * Gets tokens from the authorization endpoint with the sign-in cookie: true when signed in.
 * Without a sign-in the endpoint answers its sign-in page instead of redirecting back.
 */
async function authorize(): Promise<boolean> {
  const verifier = randomText();
  const response = await fetch(await authorizeUrl(verifier, '/app'), { credentials: 'same-origin', cache: 'no-store' });
  const landed = new URL(response.url);
  const code = landed.pathname === '/app' ? landed.searchParams.get('code') : null;
  if (!code) return false;
  const granted = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri(), code_verifier: verifier });
  // A renewal that was already under way when signing out began: its grant is revoked too.
  if (granted && signingOut) {
    await revoke(granted);
    return false;
  }
  tokens = granted;
  return tokens !== undefined;
}

function revoke(held: Tokens): Promise<Response> {
  return fetch('/api/v1/oauth/revoke', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...organizationHeaders() },
    body: new URLSearchParams({ token: held.refreshToken, client_id: CLIENT_ID }),
    credentials: 'omit',
  });
}

/** Sends the person to the sign-in page (their e-mail filled in when known), to come back to `returnTo`. */
export async function goToSignIn(returnTo = location.pathname + location.search, loginHint?: string): Promise<never> {
  location.assign(await authorizeUrl(randomText(), returnTo, loginHint));
  return new Promise<never>(() => {});
}

/** The path a sign-in came back to (from `state`), with the code and state taken out of the address. */
function returnFromSignIn(): void {
  const url = new URL(location.href);
  const state = url.searchParams.get('state');
  if (!state || !(url.searchParams.has('code') || url.searchParams.has('error'))) return;
  let path = '/app';
  try {
    const decoded = new TextDecoder().decode(Uint8Array.from(atob(state.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)));
    // Only a path of this console: never another origin.
    if (/^\/app(\/|\?|$)/.test(decoded)) path = decoded;
  } catch {
    // A state this console did not make: go to the start.
  }
  history.replaceState(null, '', path);
}

/** At start: signed in (tokens in memory), or on the way to the sign-in page. */
export async function startSession(): Promise<void> {
  if (!(await authorize())) await goToSignIn();
}

async function refresh(): Promise<boolean> {
  if (signingOut) return false;
  if (tokens) tokens = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken });
  return tokens !== undefined || (await authorize());
}

/**
 * `fetch` for the API client: the access token and organization on every request; on 401 the
 * tokens are renewed once (refresh token, else the sign-in cookie) and the request sent again;
 * when the sign-in itself has ended, the person goes to sign in and comes back here.
 */
export async function apiFetch(request: Request): Promise<Response> {
  const send = (r: Request) => {
    const headers = new Headers(r.headers);
    for (const [name, value] of Object.entries(organizationHeaders())) headers.set(name, value);
    if (tokens) headers.set('authorization', `Bearer ${tokens.accessToken}`);
    return fetch(new Request(r, { headers, credentials: 'omit' }));
  };
  const retry = request.clone();
  const response = await send(request);
  if (response.status !== 401) return response;
  if (await refresh()) return send(retry);
  // Signing out sends the person to the sign-in page itself.
  if (signingOut) return response;
  return goToSignIn();
}

/**
 * Signs out at the server: the sign-in cookie's session is ended first, so no renewal can start a
 * new grant, then the console's grant is revoked.
 */
export async function signOut(): Promise<void> {
  signingOut = true;
  const held = tokens;
  await fetch('/api/v1/oauth/authorize/sign-out', { method: 'POST', headers: organizationHeaders(), credentials: 'same-origin' });
  tokens = undefined;
  if (held) await revoke(held);
  await goToSignIn('/app');
}
