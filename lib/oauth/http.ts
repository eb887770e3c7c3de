import * as z from 'zod';
import { AppError, notFound } from '../core/errors.js';
import { config } from '../core/config.js';
import { authenticated, EDGE_THROTTLES, open, originOf, type RawBody, type RequestInfo, type Routes, onFirstUse } from '../http/routes.js';
import { addressedSlugOf, organizationSlugOf, subdomainSlugOf } from '../http/organization-slug.js';
import { storedUrl } from '../http/validation.js';
import type { AnonymousContext, DomainContext } from '../db/context.js';
import { db } from '../db/service.js';
import { authenticate, endSession, login } from '../identity/index.js';
import { authorizationServerMetadata, oauthSiteOf, protectedResourceMetadata, slugOfOrganization, type OAuthSite } from './discovery.js';
import { publishedKeys } from './keys.js';
import { limitOAuthCalls, type OAuthEndpoint } from './rate-limits.js';
import { registerClient, registerPublicClient, resolveClient, type OAuthClient } from './clients.js';
import {
  authorizeQueryOf, checkAuthorizationRequest, csrfTokenMatches, csrfTokenOf, issueAuthorizationCode, openAuthorizationRequest,
  sealAuthorizationRequest, authorizationResponse, type AuthorizationRequest,
} from './authorize.js';
import { consentPage, errorPage, signInPage, type Page } from './pages.js';
import { exchangeToken, revokeConsoleGrantsOfSession, revokeToken } from './tokens.js';
import { deleteGrant, listGrants, organizationsOfClient } from './grants.js';
import {
  authorizationServerResult, authorizedOrganizationResult, grantResult, jwksResult, protectedResourceResult, registeredClientResult, tokenResult,
} from './shapes.js';

const ORG_BY_SUBDOMAIN = ['NOT_FOUND'] as const;
const LIMITED_PAGE = ['NOT_FOUND', 'RATE_LIMITED'] as const;
const SUBDOMAIN_NOTE =
  "Served on an organization's own origin (`https://<slug>.<base domain>`), or on a shared origin (`npm start` on localhost) for the organization `X-Organization` names; any other request answers 404.";
const HTML = 'text/html; charset=utf-8';
/** The cookie of a sign-in made on the authorization pages (a session, like `POST /api/v1/auth/login`'s). */
const SESSION_COOKIE = 'wm_oauth_session';

/** The organization the OAuth endpoint is served for (lib/oauth/discovery.ts), with the call counted against the caller's address. */
async function oauthSite(request: RequestInfo, endpoint: OAuthEndpoint, ctx: AnonymousContext, querySlug?: string): Promise<OAuthSite> {
  const [site] = await Promise.all([siteOf(request, querySlug), limitOAuthCalls(endpoint, request.sourceIp, ctx.clock.now())]);
  return site;
}

/**
 * The organization a token or revocation request names (subdomain, else `X-Organization`), with
 * the call counted; the domain reads the organization beside the token, in the same round trip.
 */
async function namedSite(request: RequestInfo, endpoint: OAuthEndpoint, ctx: AnonymousContext): Promise<{ slug: string; origin: string; sharedOrigin: boolean }> {
  const subdomain = subdomainSlugOf(request.headers);
  const slug = subdomain ?? addressedSlugOf(request.headers);
  if (!slug) throw notFound('Organization');
  await limitOAuthCalls(endpoint, request.sourceIp, ctx.clock.now());
  return { slug, origin: originOf(request), sharedOrigin: !subdomain };
}

/** The organization an OAuth endpoint serves: the subdomain's, else the one `X-Organization` (or the authorization endpoint's `org`) names, else the local runtime's default. */
const siteOf = (request: RequestInfo, querySlug?: string): Promise<OAuthSite> =>
  oauthSiteOf({ subdomain: subdomainSlugOf(request.headers), named: organizationSlugOf(request.headers) ?? querySlug ?? addressedSlugOf(request.headers) }, originOf(request));

/**
 * The organization of an authorization page's form: the one the request names, else (a
 * shared origin, reached by a browser that sends no X-Organization) the one the page's signed
 * request was made for.
 */
async function formSite(request: RequestInfo, ctx: AnonymousContext, sealed: string): Promise<{ site: OAuthSite; authorization: AuthorizationRequest | undefined }> {
  const now = ctx.clock.now();
  if (organizationSlugOf(request.headers)) {
    const site = await oauthSite(request, 'authorize', ctx);
    return { site, authorization: await openAuthorizationRequest(sealed, site.orgId, now) };
  }
  // The seal vouches for the organization; its slug is read (beside the call's count) for the redirects.
  const authorization = await openAuthorizationRequest(sealed, undefined, now);
  if (!authorization) throw notFound('Organization');
  const [slug] = await Promise.all([slugOfOrganization(authorization.orgId), limitOAuthCalls('authorize', request.sourceIp, now)]);
  if (!slug) throw notFound('Organization');
  return { site: { orgId: authorization.orgId, slug, origin: originOf(request), sharedOrigin: true }, authorization };
}

const asRaw = (page: Page, cookies?: string[]): RawBody => ({ body: page.body, headers: page.headers, statusCode: page.statusCode, ...(cookies ? { cookies } : {}) });
const redirect = (location: string, statusCode: 302 | 303, cookies?: string[]): RawBody => ({
  body: '',
  statusCode,
  headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  ...(cookies ? { cookies } : {}),
});

/** The signed-in user of the authorization pages (their session cookie) in the site's organization, if any. Agents never sign in here. */
async function pageSession(request: RequestInfo, ctx: AnonymousContext, site: OAuthSite): Promise<DomainContext | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return undefined;
  try {
    const session = await authenticate(token, { slug: site.slug, origin: site.origin }, ctx.clock, ctx.requestId);
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

function clearedSessionCookie(origin: string): string {
  const secure = origin.startsWith('https://') ? '; Secure' : '';
  return `${SESSION_COOKIE}=; Path=/api/v1/oauth; Max-Age=0; HttpOnly; SameSite=Lax${secure}`;
}

/** The console's "Forgot password" page, on this origin (with the organization on a shared one). */
const forgotPasswordHref = (site: OAuthSite): string => (site.sharedOrigin ? `/app/forgot?org=${encodeURIComponent(site.slug)}` : '/app/forgot');

async function organizationName(orgId: string): Promise<string> {
  return (await db().entities.organization.get({ orgId }).go()).data?.name ?? 'your organization';
}

/** The page after a valid authorization request: consent for a signed-in user, else the sign-in form. */
async function continueAuthorization(ctx: AnonymousContext, request: RequestInfo, site: OAuthSite, authorization: AuthorizationRequest, client: OAuthClient, loginHint?: string): Promise<RawBody> {
  const { clientName, host: clientHost } = client;
  const sealed = await sealAuthorizationRequest(authorization, ctx.clock.now());
  const session = await pageSession(request, ctx, site);
  if (!session) {
    return asRaw(signInPage({ organizationName: await organizationName(authorization.orgId), clientName, sealedRequest: sealed, email: loginHint, forgotPasswordHref: forgotPasswordHref(site) }));
  }
  // The console is this service's own page on this origin: signed in, the person is not asked again.
  if (client.kind === 'CONSOLE') return redirect(await issueAuthorizationCode(session, authorization, client, site.origin), 302);
  return asRaw(
    consentPage({
      organizationName: session.org.name,
      userEmail: session.actor.email,
      clientName,
      clientHost,
      scopes: authorization.scopes,
      sealedRequest: sealed,
      csrfToken: csrfTokenOf(session.actor.credential.lookupKey, sealed),
      redirectUri: authorization.redirectUri,
      selfRegistered: client.kind === 'PUBLIC',
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
    org: optionalText(100).meta({ description: "The organization's slug, on a shared origin only (the metadata's `authorization_endpoint` carries it there)" }),
    login_hint: optionalText(320).meta({ description: 'An e-mail address to fill the sign-in form with (OpenID Connect Core §3.1.2.1); the console sends it after a person joins' }),
  })
  .meta({ description: 'RFC 6749 §4.1.1 with PKCE (RFC 7636) and resource indicators (RFC 8707)' });

/** The protected resource metadata: the root and the path-aware document are the same (one resource). */
const protectedResourceRoute = (summary: string) =>
  open({
    summary,
    description: SUBDOMAIN_NOTE,
    result: protectedResourceResult,
    errors: ORG_BY_SUBDOMAIN,
    handler: async (_ctx, { request }) => protectedResourceMetadata(await siteOf(request)),
  });

/** Routes of the `oauth` group: discovery, keys, registration, authorization pages, tokens, revocation, grants. */
export const oauthRoutes: Routes = {
  'GET /.well-known/oauth-authorization-server': onFirstUse(() =>
    open({
      summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
      description: SUBDOMAIN_NOTE,
      result: authorizationServerResult,
      errors: ORG_BY_SUBDOMAIN,
      handler: async (_ctx, { request }) => authorizationServerMetadata(await siteOf(request)),
    }),
  ),
  'GET /.well-known/oauth-protected-resource': protectedResourceRoute('Protected resource metadata (RFC 9728)'),
  'GET /.well-known/oauth-protected-resource/api/v1/mcp': protectedResourceRoute('Protected resource metadata of the MCP endpoint (RFC 9728, path-aware)'),
  'GET /.well-known/jwks.json': onFirstUse(() =>
    open({
      summary: 'The public keys that verify OAuth access tokens',
      result: jwksResult,
      handler: async () => ({ keys: publishedKeys() }),
    }),
  ),
  'POST /api/v1/oauth/register': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.registration,
      summary: 'Register an OAuth client (RFC 7591)',
      description:
        'Two kinds. **With a signed-in session** (`Authorization: Bearer <session JWT>`): a confidential client, whose `client_secret` is returned once and sent as `client_secret` in token requests; redirect URIs are https, or http on a loopback address (127.0.0.1, [::1], localhost), which match on any port. **Without a credential** (open registration, as MCP clients without a metadata document do it): a public client (`token_endpoint_auth_method` `none`, also when omitted) that proves itself with PKCE S256, usable only at this organization, removed unless its first code is redeemed within 24 hours; its redirect URIs may also use the application\'s own URI scheme (`cursor://…`, `com.example.app:/…`; RFC 8252 §7.1), matched exactly. Five registrations of either kind per hour per address. Unknown metadata fields are ignored. Errors are RFC 7591 JSON (`invalid_redirect_uri`, `invalid_client_metadata`).',
      status: 201,
      errorFormat: 'oauth',
      result: registeredClientResult,
      errors: ['invalid_redirect_uri', 'invalid_client_metadata', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'RATE_LIMITED'],
      body: z.object({
        client_name: z.string().trim().min(1).max(200),
        redirect_uris: z.array(storedUrl(2000)).min(1).max(20),
        client_uri: storedUrl(2000).optional(),
        logo_uri: storedUrl(2000).optional(),
        token_endpoint_auth_method: z.string().max(100).optional(),
        grant_types: z.array(z.string().max(100)).max(10).optional(),
        response_types: z.array(z.string().max(100)).max(10).optional(),
      }),
      optionalCredential: true,
      handler: async (ctx, { body, request }) => {
        if (ctx.caller) return registerClient(ctx.caller, body, request.sourceIp);
        const site = await siteOf(request);
        return registerPublicClient(ctx.clock, site.orgId, body, request.sourceIp);
      },
    }),
  ),
  'GET /api/v1/oauth/authorize': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.oauth,
      summary: 'Authorization endpoint: sign-in and consent page (RFC 6749 §4.1)',
      description:
        "Validates the request (client, exact redirect URI, PKCE S256, state of 8+ characters, scopes, resource), then shows the sign-in form, or the consent page to a user already signed in on this origin. An error about the client or the redirect URI is shown on a page (400) and never redirects; any other error redirects to the client with `error`, `state` and `iss`.",
      raw: { contentType: HTML, statuses: [200, 302, 400] },
      errors: LIMITED_PAGE,
      query: authorizeQuery,
      handler: async (ctx, { query, request }) => {
        const site = await oauthSite(request, 'authorize', ctx, query.org);
        const check = await checkAuthorizationRequest(site.orgId, query, site.origin, ctx.clock.now());
        if (check.outcome === 'show-error') return asRaw(errorPage(check.message));
        if (check.outcome === 'redirect') return redirect(check.location, 302);
        return continueAuthorization(ctx, request, site, check.request, check.client, query.login_hint);
      },
    }),
  ),
  'POST /api/v1/oauth/authorize/sign-in': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.signIn,
      summary: 'The sign-in form of the authorization page',
      description: 'An HTML form post (`email`, `password`, and the page\'s `request`). Success signs the browser in on this origin (an HttpOnly cookie) and returns to the authorization request (303); a wrong password shows the form again with a message.',
      raw: { contentType: HTML, statuses: [200, 303, 400, 429] },
      bodyFormat: 'form',
      errors: LIMITED_PAGE,
      body: z.object({ request: z.string().max(8000), email: z.string().max(320), password: z.string().max(256) }),
      handler: async (ctx, { body, request }) => {
        const { site, authorization } = await formSite(request, ctx, body.request);
        if (!authorization) return asRaw(errorPage('This sign-in page has expired. Go back to your application and connect again.'));
        try {
          const session = await login(ctx, site.slug, { email: body.email, password: body.password }, request.sourceIp);
          return redirect(`/api/v1/oauth/authorize?${authorizeQueryOf(authorization, site.sharedOrigin ? site.slug : undefined)}`, 303, [sessionCookie(session.token, site.origin)]);
        } catch (error) {
          if (!(error instanceof AppError) || (error.status !== 401 && error.status !== 429 && error.status !== 400)) throw error;
          const client = await resolveClient(authorization.clientId, site.orgId, ctx.clock.now());
          const message = error.status === 429 ? 'Too many failed sign-ins. Wait a few minutes and try again.' : 'That e-mail address and password do not match an account of this organization.';
          const page = signInPage({
            organizationName: await organizationName(site.orgId),
            clientName: 'refused' in client ? authorization.clientId : client.clientName,
            sealedRequest: body.request,
            email: body.email,
            error: message,
            forgotPasswordHref: forgotPasswordHref(site),
          });
          return asRaw({ ...page, statusCode: error.status === 429 ? 429 : 200 });
        }
      },
    }),
  ),
  'POST /api/v1/oauth/authorize/sign-out': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.oauth,
      summary: 'End the sign-in of the authorization pages',
      description:
        "Ends the session the authorization pages' cookie holds (its record is deleted at once) and clears the cookie: the next authorization request asks for the password again. The console's grants made under that sign-in are revoked with it (every load of the console gets its own); the grants of other clients, and the console in other browsers, stay. Without a cookie, or with one that is no longer valid, it only clears the cookie. A cross-site form cannot send the cookie (SameSite=Lax).",
      raw: { contentType: 'text/plain; charset=utf-8', statuses: [204] },
      status: 204,
      errors: ORG_BY_SUBDOMAIN,
      handler: async (ctx, { request }): Promise<RawBody> => {
        const site = await oauthSite(request, 'authorize', ctx);
        const session = await pageSession(request, ctx, site);
        if (session) await Promise.all([endSession(session), revokeConsoleGrantsOfSession(session)]);
        return { body: '', statusCode: 204, headers: { 'cache-control': 'no-store' }, cookies: [clearedSessionCookie(site.origin)] };
      },
    }),
  ),
  'POST /api/v1/oauth/authorize/consent': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.oauth,
      summary: 'The Allow / Deny form of the consent page',
      description: "An HTML form post (`decision` = `allow` or `deny`, the page's `request` and its CSRF token `csrf`, bound to the signed-in session and this request). Allow redirects to the client with `code`, `state` and `iss` (RFC 9207); Deny with `error=access_denied`. A post without a valid CSRF token or session changes nothing (403 page).",
      raw: { contentType: HTML, statuses: [303, 400, 403] },
      bodyFormat: 'form',
      errors: LIMITED_PAGE,
      body: z.object({ request: z.string().max(8000), csrf: z.string().max(200).optional(), decision: z.enum(['allow', 'deny']) }),
      handler: async (ctx, { body, request }) => {
        const { site, authorization } = await formSite(request, ctx, body.request);
        if (!authorization) return asRaw(errorPage('This consent page has expired. Go back to your application and connect again.'));
        const session = await pageSession(request, ctx, site);
        if (!session) return asRaw(errorPage('You are not signed in any more. Go back to your application and connect again.', 403));
        if (!csrfTokenMatches(body.csrf, session.actor.credential.lookupKey, body.request)) {
          return asRaw(errorPage('This form could not be verified. Go back to your application and connect again.', 403));
        }
        if (body.decision === 'deny') {
          return redirect(authorizationResponse(authorization.redirectUri, site.origin, { error: 'access_denied', error_description: 'The user denied the request' }, authorization.state), 303);
        }
        const client = await resolveClient(authorization.clientId, site.orgId, ctx.clock.now());
        if ('refused' in client) return asRaw(errorPage(client.refused));
        return redirect(await issueAuthorizationCode(session, authorization, client, site.origin), 303);
      },
    }),
  ),
  'POST /api/v1/oauth/token': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.oauth,
      summary: 'Token endpoint: authorization code and refresh token grants (RFC 6749 §4.1.3, §6)',
      description:
        'Form-encoded (`application/x-www-form-urlencoded`) as RFC 6749 requires; JSON is accepted too. Registered clients send `client_secret`; public clients (open registration, metadata documents) prove themselves with PKCE alone. Codes and refresh tokens work only at the organization that issued them. Codes are single-use (a second use revokes what the first issued); refresh tokens rotate on every use: the same refresh request sent again within 5 seconds gets the same new pair, any other use of a spent refresh token revokes the grant. `scope` can only narrow; `resource`, when sent, must be this organization\'s resource; `organization_id` switches organization (registered clients). Never cached.',
      bodyFormat: 'form',
      errorFormat: 'oauth',
      result: tokenResult,
      errors: ['invalid_grant', 'invalid_scope', 'invalid_target', 'unauthorized_client', 'unsupported_grant_type', 'invalid_client', 'NOT_FOUND', 'RATE_LIMITED'],
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
        const site = await namedSite(request, 'token', ctx);
        const originOfSlug = (slug: string) => (site.sharedOrigin ? site.origin : site.origin.replace(/^(https?:\/\/)[^.]+/, `$1${slug}`));
        return exchangeToken(ctx.clock, body, { slug: site.slug, origin: site.origin, originOfSlug });
      },
    }),
  ),
  'POST /api/v1/oauth/revoke': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.oauth,
      summary: 'Revoke a token (RFC 7009)',
      description:
        'Form-encoded or JSON `token`, with the client authenticated as at the token endpoint (RFC 7009 §2.1): `client_id`, and `client_secret` for a registered (confidential) client; a missing or failed client authentication is 401 `invalid_client`. A refresh token revokes its whole grant; an access token itself; only tokens issued to that client. Otherwise always 200, whatever the token.',
      bodyFormat: 'form',
      errorFormat: 'oauth',
      result: z.strictObject({}).meta({ id: 'OAuthRevocation', description: 'Empty: the token is revoked now, or was not valid' }),
      errors: ['invalid_client', 'NOT_FOUND', 'RATE_LIMITED'],
      body: z.object({ token: z.string().min(1).max(4000), token_type_hint: optionalText(100), client_id: optionalText(2000), client_secret: optionalText(200) }),
      handler: async (ctx, { body, request }) => {
        const site = await namedSite(request, 'revoke', ctx);
        await revokeToken({ token: body.token, clientId: body.client_id, clientSecret: body.client_secret }, site.slug, ctx.clock.now());
        return {};
      },
    }),
  ),
  'GET /api/v1/oauth/me/organizations': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Organizations you belong to that authorized a client',
      description: 'With an access token of that (registered) client: every organization where you (the same e-mail address) authorized it, the targets of `organization_id` at the token endpoint. With any other credential: this organization, if you authorized the client here.',
      envelope: 'data',
      result: z.array(authorizedOrganizationResult),
      errors: ['RATE_LIMITED'],
      query: z.strictObject({ client_id: z.string().min(1).max(2000) }),
      handler: async (ctx, { query, request }) => {
        await limitOAuthCalls('account', request.sourceIp, ctx.clock.now());
        return organizationsOfClient(ctx, query.client_id);
      },
    }),
  ),
  'GET /api/v1/oauth/grants': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'The clients you authorized in this organization',
      envelope: 'data',
      result: z.array(grantResult),
      errors: ['RATE_LIMITED'],
      handler: async (ctx, { request }) => {
        await limitOAuthCalls('account', request.sourceIp, ctx.clock.now());
        return listGrants(ctx);
      },
    }),
  ),
  'DELETE /api/v1/oauth/grants/{grantId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Revoke a client you authorized (its tokens stop working at once)',
      status: 204,
      errors: ['RATE_LIMITED'],
      params: z.strictObject({ grantId: z.string().min(1).max(100) }),
      handler: async (ctx, { params, request }) => {
        await limitOAuthCalls('account', request.sourceIp, ctx.clock.now());
        await deleteGrant(ctx, params.grantId);
      },
    }),
  ),
};
