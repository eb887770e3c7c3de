import { createHash } from 'node:crypto';
import { redirectTarget } from './redirects.js';
import type { OAuthScope } from './discovery.js';

/**
 * The sign-in and consent pages: server-rendered HTML and CSS, no script at all. Every page
 * sends a Content-Security-Policy that allows no script, only this stylesheet (by its hash),
 * forms posting to this origin (and, for the consent form, following its redirect to the
 * client), and no framing; `X-Frame-Options: DENY` as well, so the Allow button cannot be
 * clickjacked, and `Referrer-Policy: no-referrer`, so the request's parameters never leak.
 */

const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#f6f7f9;--card:#fff;--muted:#57606a;--accent:#0b57d0;--accent-fg:#fff;--danger:#b3261e;--border:#d0d7de}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--card:#161b22;--muted:#9da7b3;--accent:#4c8dff;--accent-fg:#0d1117;--danger:#ff8a80;--border:#30363d}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:28rem;margin:0 auto;padding:2rem 1rem}
.card{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:1.5rem}
h1{font-size:1.35rem;margin:0 0 1rem}
p{margin:0 0 1rem}
.muted{color:var(--muted);font-size:.95rem}
label{display:block;font-weight:600;margin:0 0 .25rem}
input[type=email],input[type=password]{width:100%;font:inherit;padding:.6rem .7rem;margin:0 0 1rem;border:1px solid var(--border);border-radius:8px;background:var(--bg);color:var(--fg)}
button{font:inherit;font-weight:600;padding:.65rem 1.2rem;border-radius:8px;border:1px solid var(--accent);cursor:pointer;min-height:44px}
button.primary{background:var(--accent);color:var(--accent-fg)}
button.secondary{background:transparent;color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.25rem}
.actions form{margin:0}
ul.scopes{padding-left:1.2rem;margin:0 0 1rem}
.error{color:var(--danger);font-weight:600}
`;
const STYLE_HASH = createHash('sha256').update(CSS).digest('base64');

/** Plain-language meaning of each scope, as the consent page lists it. */
export const SCOPE_WORDS: Record<OAuthScope, string> = {
  read: 'Read boards, tickets, comments, the wiki and other resources you can see',
  write: 'Create and change tickets, comments and other resources on your behalf',
  admin: 'Administer the organization: settings, users, permission groups, agents and webhooks',
};

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

export interface Page {
  body: string;
  headers: Record<string, string>;
  statusCode: number;
}

/** `formTarget`: the origin the page's forms may end up at besides this one (the client's redirect URI). */
function page(title: string, content: string, statusCode = 200, formTarget?: string): Page {
  const formAction = ["'self'", ...(formTarget ? [formTarget] : [])].join(' ');
  return {
    statusCode,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
    body: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<div class="card">
${content}
</div>
</main>
</body>
</html>
`,
  };
}

export interface SignInPageInput {
  organizationName: string;
  clientName: string;
  sealedRequest: string;
  email?: string;
  error?: string;
  /** The console's "Forgot password" page of this organization. */
  forgotPasswordHref: string;
}

export function signInPage(input: SignInPageInput): Page {
  const error = input.error ? `<p class="error" role="alert" id="sign-in-error">${escapeHtml(input.error)}</p>` : '';
  const described = input.error ? ' aria-describedby="sign-in-error"' : '';
  return page(
    `Sign in to ${input.organizationName}`,
    `<h1>Sign in to ${escapeHtml(input.organizationName)}</h1>
<p class="muted">${escapeHtml(input.clientName)} wants to connect to your account. Sign in to continue.</p>
${error}<form method="post" action="/api/v1/oauth/authorize/sign-in">
<input type="hidden" name="request" value="${escapeHtml(input.sealedRequest)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(input.email ?? '')}"${described}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${described}>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>
<p class="muted"><a href="${escapeHtml(input.forgotPasswordHref)}">Forgot password?</a></p>`,
  );
}

export interface ConsentPageInput {
  organizationName: string;
  userEmail: string;
  clientName: string;
  /** The metadata document's host, for a client identified by one. */
  clientHost: string | null;
  scopes: OAuthScope[];
  sealedRequest: string;
  csrfToken: string;
  /** Where the browser returns: named on the page, and allowed as the forms' redirect target (CSP). */
  redirectUri: string;
  /** The client registered itself without an account (its name is its own claim). */
  selfRegistered: boolean;
}

export function consentPage(input: ConsentPageInput): Page {
  const host = input.clientHost ? ` <span class="muted">(from ${escapeHtml(input.clientHost)})</span>` : '';
  const target = redirectTarget(input.redirectUri);
  const unverified = input.selfRegistered ? ' This application registered itself; its name is not verified.' : '';
  const hidden = `<input type="hidden" name="request" value="${escapeHtml(input.sealedRequest)}">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrfToken)}">`;
  return page(
    `Allow ${input.clientName} to access ${input.organizationName}?`,
    `<h1>Allow <strong>${escapeHtml(input.clientName)}</strong>${host} to access ${escapeHtml(input.organizationName)}?</h1>
<p class="muted">Signed in as ${escapeHtml(input.userEmail)}.</p>
<p>It will be able to:</p>
<ul class="scopes">
${input.scopes.map((scope) => `<li>${escapeHtml(SCOPE_WORDS[scope])}</li>`).join('\n')}
</ul>
<p class="muted">Allowing returns you to <strong>${escapeHtml(target.shown)}</strong>.${escapeHtml(unverified)}</p>
<p class="muted">You can revoke this at any time; it also ends when you sign out or change your password.</p>
<div class="actions">
<form method="post" action="/api/v1/oauth/authorize/consent">${hidden}<input type="hidden" name="decision" value="allow"><button class="primary" type="submit">Allow</button></form>
<form method="post" action="/api/v1/oauth/authorize/consent">${hidden}<input type="hidden" name="decision" value="deny"><button class="secondary" type="submit">Deny</button></form>
</div>`,
    200,
    target.cspSource,
  );
}

export function errorPage(message: string, statusCode = 400): Page {
  return page(
    'Cannot continue',
    `<h1>This request cannot continue</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p class="muted">Go back to the application you came from and start again.</p>`,
    statusCode,
  );
}
