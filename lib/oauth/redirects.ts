/**
 * Redirect URI rules of the authorization server (docs/oauth.md, RFC 8252, RFC 9700): a client
 * registers HTTPS URIs, or loopback `http` URIs (`127.0.0.1`, `[::1]`, `localhost`) for native
 * apps; an authorization request must name one of them exactly, except that a loopback URI
 * matches on any port (RFC 8252 §7.3: the app picks a free port at run time). A public client
 * (no secret: anonymously registered, or identified by a metadata document) may also register
 * a private-use URI scheme of its own (RFC 8252 §7.1: `cursor://…`, `com.example.app:/…`),
 * matched exactly; a confidential client may not.
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** RFC 3986 §3.1: a scheme is a letter, then letters, digits, `+`, `-` and `.`. */
const SCHEME = /^[a-z][a-z0-9+.-]*:$/;

/**
 * Schemes that are never an application's own (RFC 8252 §8.4 and RFC 9700 §4.1: a redirect must
 * not run script, read local files or reach a network service the user did not choose): the
 * browser's own and the web's, which a native app cannot claim.
 */
const NOT_PRIVATE_USE = new Set([
  'javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'filesystem:', 'view-source:', 'chrome:', 'chrome-extension:',
  'ws:', 'wss:', 'ftp:', 'mailto:', 'tel:', 'sms:', 'urn:', 'http:', 'https:',
]);

export interface RedirectRules {
  /** A public client: private-use URI schemes are allowed (RFC 8252 §7.1). */
  publicClient: boolean;
}

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriRefusal(raw: string, rules: RedirectRules = { publicClient: false }): string | undefined {
  if (raw.includes('#')) return 'must not contain a fragment';
  if (raw.includes('*')) return 'must not contain a wildcard';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return url.hostname ? undefined : 'must name a host';
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? undefined : 'http is allowed only for loopback addresses (127.0.0.1, [::1], localhost)';
  if (!rules.publicClient) return 'must be https, or http on a loopback address';
  if (!SCHEME.test(url.protocol) || NOT_PRIVATE_USE.has(url.protocol)) return `must be https, http on a loopback address, or an application's own URI scheme (${url.protocol} is not one)`;
  return undefined;
}

const isLoopback = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/**
 * Whether `requested` names the registered URI `registered`: the same string, or, for a loopback
 * URI, the same scheme, host, path and query on any port. Nothing else is normalized: a trailing
 * slash, another case, another query or scheme is another URI (a private-use scheme too).
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  let want: URL;
  let got: URL;
  try {
    want = new URL(registered);
    got = new URL(requested);
  } catch {
    return false;
  }
  if (!isLoopback(want) || !isLoopback(got) || requested.includes('#')) return false;
  return want.hostname === got.hostname && want.pathname === got.pathname && want.search === got.search;
}

/**
 * Where a redirect URI returns the browser, as the consent page names it and as a CSP
 * `form-action` source: the origin of an http(s) URI, the scheme and authority of a private-use
 * one (whose URL origin is opaque).
 */
export function redirectTarget(redirectUri: string): { shown: string; cspSource: string } {
  const url = new URL(redirectUri);
  if (url.protocol === 'https:' || url.protocol === 'http:') return { shown: url.origin, cspSource: url.origin };
  return { shown: url.host ? `${url.protocol}//${url.host}` : url.protocol, cspSource: url.protocol };
}
