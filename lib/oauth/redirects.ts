/**
 * Redirect URI rules of the authorization server (spec §5.4.2, RFC 8252, RFC 9700): a client
 * registers HTTPS URIs, or loopback `http` URIs (`127.0.0.1`, `[::1]`, `localhost`) for native
 * apps; an authorization request must name one of them exactly, except that a loopback URI
 * matches on any port (RFC 8252 §7.3: the app picks a free port at run time).
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriRefusal(raw: string): string | undefined {
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
  return 'must be https, or http on a loopback address';
}

const isLoopback = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/**
 * Whether `requested` names the registered URI `registered`: the same string, or, for a loopback
 * URI, the same scheme, host, path and query on any port. Nothing else is normalized: a trailing
 * slash, another case, another query or scheme is another URI.
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
