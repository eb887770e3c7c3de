import * as z from 'zod';
import { AppError } from '../core/errors.js';
import { config } from '../core/config.js';
import { authenticated, open, originOf, type RawBody, type RequestInfo, type Routes } from '../http/router.js';
import { subdomainSlugOf } from '../http/organization-slug.js';
import type { AnonymousContext, DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { authenticate } from '../identity/authenticate.js';
import { login } from '../identity/login.js';
import { authorizationServerMetadata, protectedResourceMetadata, requireOAuthOrganization } from './discovery.js';
import { signingKey } from './keys.js';
import { limitOAuthCalls, type OAuthEndpoint } from './rate-limits.js';
import { registerClient, resolveClient } from './clients.js';
import {
  authorizeQueryOf, checkAuthorizationRequest, csrfTokenMatches, csrfTokenOf, issueAuthorizationCode, openAuthorizationRequest,
  sealAuthorizationRequest, authorizationResponse, type AuthorizationRequest,
} from './authorize.js';
import { consentPage, errorPage, signInPage, type Page } from './pages.js';
import { exchangeToken, revokeToken } from './tokens.js';
import { deleteGrant, listGrants, organizationsOfClient } from './grants.js';
import {
  authorizationServerResult, authorizedOrganizationResult, grantResult, jwksResult, protectedResourceResult, registeredClientResult, tokenResult,
} from './http-responses.js';

const ORG_BY_SUBDOMAIN = { 404: ['NOT_FOUND'] } as const;
const LIMITED_PAGE = { 404: ['NOT_FOUND'], 429: ['RATE_LIMITED'] } as const;
const SUBDOMAIN_NOTE = "Served on an organization's own origin (`https://<slug>.<base domain>`); any other host answers 404.";
const HTML = 'text/html; charset=utf-8';
/** The cookie of a sign-in made on the authorization pages (a session, like `POST /api/v1/auth/login`'s). */
const SESSION_COOKIE = 'wm_oauth_session';

/** The organization the OAuth endpoint is served for (its subdomain), with the call counted against the caller's address. */
async function oauthOrganization(request: RequestInfo, endpoint: OAuthEndpoint, ctx: AnonymousContext): Promise<string> {
  const [orgId] = await Promise.all([requireOAuthOrganization(subdomainSlugOf(request.headers)), limitOAuthCalls(endpoint, request.sourceIp, ctx.clock.now())]);
  return orgId;
}

const asRaw = (page: Page, cookies?: string[]): RawBody => ({ body: page.body, headers: page.headers, statusCode: page.statusCode, ...(cookies ? { cookies } : {}) });
const redirect = (location: string, statusCode: 302 | 303, cookies?: string[]): RawBody => ({
  body: '',
  statusCode,
  headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  ...(cookies ? { cookies } : {}),
});

/** The signed-in user of the authorization pages (their session cookie), if any. Agents never sign in here. */
async function pageSession(request: RequestInfo, ctx: AnonymousContext): Promise<DomainContext | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return undefined;
  try {
    const session = await authenticate(token, { slug: subdomainSlugOf(request.headers), origin: originOf(request) }, ctx.clock, ctx.requestId);
    return session.actor.credential.kind === 'SESSION' && !session.actor.isAgent ? session : undefined;
  } catch (error) {
    if (error instanceof AppError && error.status === 401) return undefined;
    throw error;
  }
}

function sessionCookie(token: string, origin: string): string {
  const secure = origin.startsWith('https://') ? '; Secure' : '';
  return `${SESSION_COOKIE}=${token}; Path=/api/v1/oauth; Max-Age=${config().sessionTtlSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

async function organizationName(orgId: string): Promise<string> {
  return (await db().entities.organization.get({ orgId }).go()).data?.name ?? 'your organization';
}

/** The page after a valid authorization request: consent for a signed-in user, else the sign-in form. */
async function continueAuthorization(ctx: AnonymousContext, request: RequestInfo, authorization: AuthorizationRequest, clientName: string, clientHost: string | null): Promise<RawBody> {
  const sealed = await sealAuthorizationRequest(authorization, ctx.clock.now());
  const session = await pageSession(request, ctx);
  if (!session) return asRaw(signInPage({ organizationName: await organizationName(authorization.orgId), clientName, sealedRequest: sealed }));
  return asRaw(
    consentPage({
      organizationName: session.org.name,
      userEmail: session.actor.email,
      clientName,
      clientHost,
      scopes: authorization.scopes,
      sealedRequest: sealed,
      csrfToken: csrfTokenOf(session.actor.credential.lookupKey, sealed),
      redirectOrigin: new URL(authorization.redirectUri).origin,
    }),
  );
}

const optionalText = (max: number) => z.string().max(max).optional();

const authorizeQuery = z
  .object({
    response_type: optionalText(100),
    client_id: optionalText(2000),
    redirect_uri: optionalText(2000),
    state: optionalText(1000),
    code_challenge: optionalText(200),
    code_challenge_method: optionalText(20),
    scope: optionalText(200),
    resource: optionalText(2000),
  })
  .meta({ description: 'RFC 6749 §4.1.1 with PKCE (RFC 7636) and resource indicators (RFC 8707)' });

/** The protected resource metadata: the root and the path-aware document are the same (one resource). */
const protectedResourceRoute = (summary: string) =>
  open({
    summary,
    description: SUBDOMAIN_NOTE,
    result: protectedResourceResult,
    errors: ORG_BY_SUBDOMAIN,
    handler: async (_ctx, { request }) => {
      await requireOAuthOrganization(subdomainSlugOf(request.headers));
      return protectedResourceMetadata(originOf(request));
    },
  });

/** Routes of the `oauth` group: discovery, keys, registration, authorization pages, tokens, revocation, grants. */
export const oauthRoutes: Routes = {
  'GET /.well-known/oauth-authorization-server': open({
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    description: SUBDOMAIN_NOTE,
    result: authorizationServerResult,
    errors: ORG_BY_SUBDOMAIN,
    handler: async (_ctx, { request }) => {
      await requireOAuthOrganization(subdomainSlugOf(request.headers));
      return authorizationServerMetadata(originOf(request));
    },
  }),
  'GET /.well-known/oauth-protected-resource': protectedResourceRoute('Protected resource metadata (RFC 9728)'),
  'GET /.well-known/oauth-protected-resource/api/v1/mcp': protectedResourceRoute('Protected resource metadata of the MCP endpoint (RFC 9728, path-aware)'),
  'GET /.well-known/jwks.json': open({
    summary: 'The public keys that verify OAuth access tokens',
    result: jwksResult,
    handler: async () => ({ keys: [signingKey().publicJwk] }),
  }),
  'POST /api/v1/oauth/register': authenticated({
    summary: 'Register an OAuth client (RFC 7591)',
    description:
      'Needs a signed-in session. Registers a confidential client: its `client_secret` is returned once and sent as `client_secret` in token requests. Redirect URIs are https, or http on a loopback address (127.0.0.1, [::1], localhost), which match on any port. Five registrations per hour per address. Errors are RFC 7591 JSON (`invalid_redirect_uri`, `invalid_client_metadata`).',
    status: 201,
    errorFormat: 'oauth',
    result: registeredClientResult,
    errors: { 400: ['invalid_redirect_uri', 'invalid_client_metadata'], 429: ['rate_limited'] },
    body: z.object({
      client_name: z.string().trim().min(1).max(200),
      redirect_uris: z.array(z.string().max(2000)).min(1).max(20),
      client_uri: z.string().max(2000).optional(),
      logo_uri: z.string().max(2000).optional(),
      token_endpoint_auth_method: z.string().max(100).optional(),
      grant_types: z.array(z.string().max(100)).max(10).optional(),
      response_types: z.array(z.string().max(100)).max(10).optional(),
    }),
    handler: (ctx, { body, request }) => registerClient(ctx, body, request.sourceIp),
  }),
  'GET /api/v1/oauth/authorize': open({
    summary: 'Authorization endpoint: sign-in and consent page (RFC 6749 §4.1)',
    description:
      "Validates the request (client, exact redirect URI, PKCE S256, state of 8+ characters, scopes, resource), then shows the sign-in form, or the consent page to a user already signed in on this origin. An error about the client or the redirect URI is shown on a page (400) and never redirects; any other error redirects to the client with `error`, `state` and `iss`.",
    raw: { contentType: HTML, statuses: [200, 302, 400] },
    errors: LIMITED_PAGE,
    query: authorizeQuery,
    handler: async (ctx, { query, request }) => {
      const orgId = await oauthOrganization(request, 'authorize', ctx);
      const origin = originOf(request);
      const check = await checkAuthorizationRequest(orgId, query, origin, ctx.clock.now());
      if (check.outcome === 'show-error') return asRaw(errorPage(check.message));
      if (check.outcome === 'redirect') return redirect(check.location, 302);
      return continueAuthorization(ctx, request, check.request, check.client.clientName, check.client.host);
    },
  }),
  'POST /api/v1/oauth/authorize/sign-in': open({
    summary: 'The sign-in form of the authorization page',
    description: 'An HTML form post (`email`, `password`, and the page\'s `request`). Success signs the browser in on this origin (an HttpOnly cookie) and returns to the authorization request (303); a wrong password shows the form again with a message.',
    raw: { contentType: HTML, statuses: [200, 303, 400, 429] },
    bodyFormat: 'form',
    errors: LIMITED_PAGE,
    body: z.object({ request: z.string().max(8000), email: z.string().max(320), password: z.string().max(256) }),
    handler: async (ctx, { body, request }) => {
      const orgId = await oauthOrganization(request, 'authorize', ctx);
      const authorization = await openAuthorizationRequest(body.request, orgId, ctx.clock.now());
      if (!authorization) return asRaw(errorPage('This sign-in page has expired. Go back to your application and connect again.'));
      try {
        const session = await login(ctx, subdomainSlugOf(request.headers), { email: body.email, password: body.password }, request.sourceIp);
        return redirect(`/api/v1/oauth/authorize?${authorizeQueryOf(authorization)}`, 303, [sessionCookie(session.token, originOf(request))]);
      } catch (error) {
        if (!(error instanceof AppError) || (error.status !== 401 && error.status !== 429 && error.status !== 400)) throw error;
        const client = await resolveClient(authorization.clientId, ctx.clock.now());
        const message = error.status === 429 ? 'Too many failed sign-ins. Wait a few minutes and try again.' : 'That e-mail address and password do not match an account of this organization.';
        const page = signInPage({ organizationName: await organizationName(orgId), clientName: 'refused' in client ? authorization.clientId : client.clientName, sealedRequest: body.request, email: body.email, error: message });
        return asRaw({ ...page, statusCode: error.status === 429 ? 429 : 200 });
      }
    },
  }),
  'POST /api/v1/oauth/authorize/consent': open({
    summary: 'The Allow / Deny form of the consent page',
    description: "An HTML form post (`decision` = `allow` or `deny`, the page's `request` and its CSRF token `csrf`, bound to the signed-in session and this request). Allow redirects to the client with `code`, `state` and `iss` (RFC 9207); Deny with `error=access_denied`. A post without a valid CSRF token or session changes nothing (403 page).",
    raw: { contentType: HTML, statuses: [303, 400, 403] },
    bodyFormat: 'form',
    errors: LIMITED_PAGE,
    body: z.object({ request: z.string().max(8000), csrf: z.string().max(200).optional(), decision: z.enum(['allow', 'deny']) }),
    handler: async (ctx, { body, request }) => {
      const orgId = await oauthOrganization(request, 'authorize', ctx);
      const origin = originOf(request);
      const authorization = await openAuthorizationRequest(body.request, orgId, ctx.clock.now());
      if (!authorization) return asRaw(errorPage('This consent page has expired. Go back to your application and connect again.'));
      const session = await pageSession(request, ctx);
      if (!session) return asRaw(errorPage('You are not signed in any more. Go back to your application and connect again.', 403));
      if (!csrfTokenMatches(body.csrf, session.actor.credential.lookupKey, body.request)) {
        return asRaw(errorPage('This form could not be verified. Go back to your application and connect again.', 403));
      }
      if (body.decision === 'deny') {
        return redirect(authorizationResponse(authorization.redirectUri, origin, { error: 'access_denied', error_description: 'The user denied the request' }, authorization.state), 303);
      }
      const client = await resolveClient(authorization.clientId, ctx.clock.now());
      if ('refused' in client) return asRaw(errorPage(client.refused));
      return redirect(await issueAuthorizationCode(session, authorization, client, origin), 303);
    },
  }),
  'POST /api/v1/oauth/token': open({
    summary: 'Token endpoint: authorization code and refresh token grants (RFC 6749 §4.1.3, §6)',
    description:
      'Form-encoded (`application/x-www-form-urlencoded`) as RFC 6749 requires; JSON is accepted too. Registered clients send `client_secret`; metadata-document clients prove themselves with PKCE alone. Codes are single-use (a second use revokes what the first issued); refresh tokens rotate on every use (a rotated one used again revokes the grant); `scope` can only narrow; `organization_id` switches organization (registered clients). Never cached.',
    bodyFormat: 'form',
    errorFormat: 'oauth',
    result: tokenResult,
    errors: { 400: ['invalid_grant', 'invalid_scope', 'invalid_target', 'unauthorized_client', 'unsupported_grant_type'], 401: ['invalid_client'], 429: ['rate_limited'] },
    body: z.object({
      grant_type: optionalText(100),
      code: optionalText(200),
      redirect_uri: optionalText(2000),
      client_id: optionalText(2000),
      client_secret: optionalText(200),
      code_verifier: optionalText(200),
      refresh_token: optionalText(200),
      scope: optionalText(200),
      resource: optionalText(2000),
      organization_id: optionalText(100),
    }),
    handler: async (ctx, { body, request }) => {
      await limitOAuthCalls('token', request.sourceIp, ctx.clock.now());
      const origin = originOf(request);
      return exchangeToken(ctx.clock, body, { origin, originOfSlug: (slug) => origin.replace(/^(https?:\/\/)[^.]+/, `$1${slug}`) });
    },
  }),
  'POST /api/v1/oauth/revoke': open({
    summary: 'Revoke a token (RFC 7009)',
    description: 'Form-encoded or JSON `token` (and optionally `client_id`). A refresh token revokes its whole grant; an access token itself. Always 200, whatever the token.',
    bodyFormat: 'form',
    errorFormat: 'oauth',
    result: z.strictObject({}).meta({ id: 'OAuthRevocation', description: 'Empty: the token is revoked now, or was not valid' }),
    errors: { 429: ['rate_limited'] },
    body: z.object({ token: z.string().min(1).max(4000), token_type_hint: optionalText(100), client_id: optionalText(2000), client_secret: optionalText(200) }),
    handler: async (ctx, { body, request }) => {
      await limitOAuthCalls('revoke', request.sourceIp, ctx.clock.now());
      await revokeToken(body.token, body.client_id, ctx.clock.now());
      return {};
    },
  }),
  'GET /api/v1/oauth/me/organizations': authenticated({
    summary: 'Organizations you belong to that authorized a client',
    description: 'With an access token of that (registered) client: every organization where you (the same e-mail address) authorized it, the targets of `organization_id` at the token endpoint. With any other credential: this organization, if you authorized the client here.',
    envelope: 'data',
    result: z.array(authorizedOrganizationResult),
    errors: { 429: ['RATE_LIMITED'] },
    query: z.strictObject({ client_id: z.string().min(1).max(2000) }),
    handler: async (ctx, { query, request }) => {
      await limitOAuthCalls('account', request.sourceIp, ctx.clock.now());
      return organizationsOfClient(ctx, query.client_id);
    },
  }),
  'GET /api/v1/oauth/grants': authenticated({
    summary: 'The clients you authorized in this organization',
    envelope: 'data',
    result: z.array(grantResult),
    errors: { 429: ['RATE_LIMITED'] },
    handler: async (ctx, { request }) => {
      await limitOAuthCalls('account', request.sourceIp, ctx.clock.now());
      return listGrants(ctx);
    },
  }),
  'DELETE /api/v1/oauth/grants/{grantId}': authenticated({
    summary: 'Revoke a client you authorized (its tokens stop working at once)',
    status: 204,
    errors: { 429: ['RATE_LIMITED'] },
    params: z.strictObject({ grantId: z.string().min(1).max(100) }),
    handler: async (ctx, { params, request }) => {
      await limitOAuthCalls('account', request.sourceIp, ctx.clock.now());
      await deleteGrant(ctx, params.grantId);
    },
  }),
};
