import middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as z from 'zod';
import { AppError, forbidden, notFound, unauthenticated } from '../core/errors.js';
import { systemClock, type Clock } from '../core/clock.js';
import { newId, safeEqual, sha256Hex } from '../core/ids.js';
import { config } from '../core/config.js';
import type { AnonymousContext, DomainContext } from '../db/context.js';
import { newMeter, withRoundTripMeter, type RoundTripMeter } from '../db/client.js';
import { authenticate } from '../identity/authenticate.js';
import { errorResponse, jsonResponse, type HttpResponse } from './respond.js';
import { organizationSlugOf } from './organization-slug.js';
import type { OAuthScope } from '../oauth/discovery.js';
import { resourceMetadataUrl } from '../oauth/discovery.js';
import { parseInput } from './validation.js';
import { malformedPath, pathSegments } from './route-match.js';
import { pageEnvelope } from './pagination.js';
import { nonConformance } from './conformance.js';
import type { Page } from '../core/pages.js';

/** Largest accepted request body unless a route says otherwise (a wiki page's routes admit more). */
const MAX_BODY_BYTES = 1_100_000;

export interface RequestInfo {
  method: string;
  path: string;
  routeKey: string;
  headers: Record<string, string | undefined>;
  requestId: string;
  sourceIp: string;
  orgSlug: string | null;
  /** The raw request body (UTF-8), for routes that verify a signature over its exact bytes. */
  bodyText: string;
  /** Request cookies by name (API Gateway passes them apart from the headers). */
  cookies: Record<string, string>;
}

/**
 * The origin the client reached (scheme, host and port as it sent them): the Host header, which
 * API Gateway passes as the client's (the custom domain), and the scheme API Gateway reports in
 * `X-Forwarded-Proto`; a loopback host without it is plain HTTP (the local runtime). A client's
 * own `X-Forwarded-Host` is ignored: OAuth issuers and token audiences are built from this.
 */
export function originOf(request: RequestInfo): string {
  const host = (request.headers.host ?? 'localhost').toLowerCase();
  const loopback = /^((?:[a-z0-9-]+\.)*localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(host);
  const proto = request.headers['x-forwarded-proto'] === 'https' || !loopback ? 'https' : 'http';
  return `${proto}://${host}`;
}

interface Inputs<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  request: RequestInfo;
}

interface Schemas<P, Q, B> {
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Success status; 200 unless given. 204 sends no body. */
  status?: number;
  /**
   * How the REST adapter wraps the domain result: `data` → `{data: result}` (single records of
   * the ticket endpoints and the `{data: [...]}` lists, spec §2.1), `page` → the page envelope
   * of a domain Page. Unset: the result is the body.
   */
  envelope?: 'data' | 'page';
  /**
   * What the handler returns (for `envelope: 'page'`, one item of the page): the documented
   * success body, checked against every response in test runs. Every route but a 204 has one.
   */
  result?: z.ZodType;
  /** Error codes this route answers beyond those every route of its kind can (lib/http/responses.ts), by status. */
  errors?: Partial<Record<number, readonly string[]>>;
  /** One line for the reference (OpenAPI `summary`). */
  summary?: string;
  /** More about the operation, when the summary is not enough (OpenAPI `description`). */
  description?: string;
  /**
   * The route answers a document of this media type instead of JSON (the docs page and its
   * script): the handler returns a `RawBody`.
   */
  raw?: {
    contentType: string;
    statuses?: readonly number[];
    /** The body's schema, for the reference (a string when unset): e.g. the MCP endpoint's JSON-RPC messages. */
    schema?: z.ZodType;
  };
  /**
   * The body formats the route reads: `json` (the default), or `form`: an HTML form or an OAuth
   * request (`application/x-www-form-urlencoded`, RFC 6749), with JSON still accepted.
   */
  bodyFormat?: 'json' | 'form';
  /**
   * How errors are answered: the service's envelope (default), or `oauth`: RFC 6749 §5.2 JSON
   * (`{error, error_description}`) with lower-case OAuth codes (lib/http/respond.ts).
   */
  errorFormat?: 'oauth';
  /** Largest body the route accepts (413 above it); MAX_BODY_BYTES unless given. */
  maxBodyBytes?: number;
}

/** What the handler of a `raw` route returns. */
export interface RawBody {
  body: string;
  isBase64Encoded?: boolean;
  headers?: Record<string, string>;
  /** One of the route's `raw.statuses`; its success status unless given. */
  statusCode?: number;
  /** `Set-Cookie` values. */
  cookies?: string[];
}

/** The input fields that can name a ticket (RouteScope's sibling: `ticketRefs`). */
export type TicketRefField = 'ticketId' | 'subticketId' | 'parentTicketId';

/**
 * What an OAuth access token needs to call a route (spec §5.4.5): `read` (the route only reads),
 * `write` (it changes something), or `admin` (administration: permission groups, agents,
 * webhook endpoints, git connections, the time-booking sync endpoint, and changes to the
 * organization, users and booking items), which needs `admin` beside `read` or `write` by method.
 */
export type RouteScope = 'read' | 'write' | 'admin';

/** The OAuth scopes a route needs, from its declared scope and its method. */
export function scopesOf(route: { scope: RouteScope }, method: string): OAuthScope[] {
  if (route.scope !== 'admin') return [route.scope];
  return [method === 'GET' || method === 'HEAD' ? 'read' : 'write', 'admin'];
}

export interface AuthenticatedRoute<P = unknown, Q = unknown, B = unknown> extends Schemas<P, Q, B> {
  auth: 'credential';
  /** What an OAuth access token needs to call the route (RouteScope); every other credential ignores it. */
  scope: RouteScope;
  /**
   * Lets a `denyDelete` token through this DELETE route; the domain function then decides
   * (releasing one's own claim is allowed, spec §5.3).
   */
  denyDeleteCheckedByDomain?: boolean;
  /**
   * A route that carries operations of both kinds in its body (the MCP endpoint's tools): a
   * read-only token or a `read`-scoped OAuth token reaches it with any method, and each
   * operation applies the restriction itself (lib/mcp: only read tools are offered).
   */
  restrictionsCheckedByOperation?: boolean;
  /**
   * Fencing: the route writes a ticket and takes `X-Claim-Count`, the claim the caller works
   * under (`ctx.claimFence`); the write is refused with 409 CLAIM_SUPERSEDED unless that is still
   * the ticket's live claim of the caller. Declared (true or false) by every route of a ticket.
   */
  fence?: boolean;
  /**
   * The fields, of the path or the body, that name a ticket and so take its display id
   * (`PLAT-12`) as well: resolved to the ticket id before the handler runs (the tickets domain's
   * `withTicketRefs`). Declared by every route of a ticket and every route whose input names one.
   */
  ticketRefs?: readonly TicketRefField[];
  handler: (ctx: DomainContext, input: Inputs<P, Q, B>) => Promise<unknown>;
}

export interface OpenRoute<P = unknown, Q = unknown, B = unknown> extends Schemas<P, Q, B> {
  auth: 'none' | 'platform';
  /**
   * A credential is optional here: when one is sent it is authenticated before anything else
   * (401 when it is not valid, restrictions and scopes applied) and given to the handler as
   * `ctx.caller`; without one the route runs anonymously (OAuth registration: confidential with
   * a session, public without).
   */
  optionalCredential?: boolean;
  handler: (ctx: AnonymousContext, input: Inputs<P, Q, B>) => Promise<unknown>;
}

export type Route = AuthenticatedRoute<any, any, any> | OpenRoute<any, any, any>;
export type Routes = Record<string, Route>;

/** A route reached with any credential of the organization (session, personal, agent token). */
export const authenticated = <P = undefined, Q = undefined, B = undefined>(route: Omit<AuthenticatedRoute<P, Q, B>, 'auth'>): AuthenticatedRoute<P, Q, B> => ({ ...route, auth: 'credential' });

/** A route reached without a credential (signup, login, health). */
export const open = <P = undefined, Q = undefined, B = undefined>(route: Omit<OpenRoute<P, Q, B>, 'auth'>): OpenRoute<P, Q, B> => ({ ...route, auth: 'none' });

/** A route of the platform operator (PLATFORM_ADMIN_TOKEN). */
export const platform = <P = undefined, Q = undefined, B = undefined>(route: Omit<OpenRoute<P, Q, B>, 'auth'>): OpenRoute<P, Q, B> => ({ ...route, auth: 'platform' });

export interface HttpHandlerOptions {
  clock?: Clock;
}

/** What one invocation carries from the first middleware to the last. */
interface RequestTrace {
  requestId: string;
  meter: RoundTripMeter;
  started: number;
}

type HttpRequest = middy.Request<APIGatewayProxyEventV2, HttpResponse>;

const traces = new WeakMap<object, RequestTrace>();
const traceOf = (request: HttpRequest): RequestTrace => traces.get(request.context as object)!;

/**
 * Middleware: gives the invocation its request id (API Gateway's) and round-trip meter before
 * anything runs, and afterwards (success or error) sets `x-request-id` (and, in tests,
 * `x-db-round-trips`) and writes the request's log line.
 */
function requestTrace(): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResponse> {
  const finish = (request: HttpRequest) => {
    const trace = traceOf(request);
    const response = request.response!;
    response.headers['x-request-id'] = trace.requestId;
    if (process.env.EXPOSE_ROUND_TRIPS === 'true') response.headers['x-db-round-trips'] = String(trace.meter.roundTrips);
    logRequest(request.event, response.statusCode, trace, Date.now() - trace.started);
  };
  return {
    before: (request) => {
      request.context ??= {} as never;
      const requestId = request.event.requestContext?.requestId || newId('evt').replace('evt_', 'req_');
      traces.set(request.context as object, { requestId, meter: newMeter(), started: Date.now() });
    },
    after: finish,
    onError: finish,
  };
}

/**
 * Middleware, active only when VALIDATE_RESPONSES=true (test runs): every response must be one
 * the route documents (lib/http/responses.ts): its success body, or a documented error status
 * and code in the error envelope. A response that is not becomes a 500 `RESPONSE_MISMATCH`
 * naming the difference, which fails the test that caused it.
 */
function responseConformance(routes: Routes): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResponse> {
  const check = (request: HttpRequest) => {
    if (process.env.VALIDATE_RESPONSES !== 'true' || !request.response) return;
    const route = routes[request.event.routeKey];
    if (!route) return;
    const problem = nonConformance(request.event.routeKey, route, request.response);
    if (!problem) return;
    console.error(JSON.stringify({ msg: 'response does not match the reference', route: request.event.routeKey, status: request.response.statusCode, problem }));
    request.response = errorResponse(new AppError(500, 'INTERNAL_ERROR', 'The response does not match the API reference', { mismatch: problem, status: request.response.statusCode, body: request.response.body?.slice(0, 2000) }), traceOf(request).requestId);
  };
  return { after: check, onError: check };
}

/** Middleware: the one place where an error becomes a response (the envelope; 500 for anything unexpected). */
function errorEnvelope(routes: Routes): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResponse> {
  return {
    onError: (request) => {
      request.response = errorResponse(request.error, traceOf(request).requestId, routes[request.event.routeKey]?.errorFormat);
    },
  };
}

/**
 * Builds the Lambda handler of one route group: API Gateway (HTTP API, payload v2) event →
 * route by `routeKey` → authenticate → zod-parse path, query and body → domain call → JSON.
 * The handler is wrapped in middy middlewares: `requestTrace` (request id, round-trip meter,
 * response headers, log line) and `errorEnvelope` (errors → the envelope, in one place).
 */
export function createHttpHandler(routes: Routes, options: HttpHandlerOptions = {}) {
  const clock = options.clock ?? systemClock;
  return middy<APIGatewayProxyEventV2, HttpResponse>()
    .use(requestTrace())
    .use(responseConformance(routes))
    .use(errorEnvelope(routes))
    .handler((event, context) => {
      const trace = traces.get(context as object)!;
      return withRoundTripMeter(trace.meter, () => handleRoute(routes, event, trace.requestId, clock));
    });
}

async function handleRoute(routes: Routes, event: APIGatewayProxyEventV2, requestId: string, clock: Clock): Promise<HttpResponse> {
  const route = routes[event.routeKey];
  if (!route) throw new AppError(404, 'NOT_FOUND', 'No such route');
  // Checked for every route, whether it reads a body or not: a bad request is refused before any work.
  const bodyText = requestBodyText(event, route.maxBodyBytes ?? MAX_BODY_BYTES);
  if (!pathSegments(event.rawPath)) throw malformedPath();
  const headers = lowerCaseHeaders(event.headers ?? {});
  const method = event.requestContext.http.method.toUpperCase();
  const request: RequestInfo = {
    method,
    path: event.rawPath,
    routeKey: event.routeKey,
    headers,
    requestId,
    sourceIp: event.requestContext.http.sourceIp,
    orgSlug: organizationSlugOf(headers),
    bodyText: bodyText ?? '',
    cookies: cookiesOf(event),
  };

  let ctx: DomainContext | AnonymousContext;
  if (route.auth === 'credential') {
    const domainCtx = await authenticateRequest(request, clock);
    enforceTokenRestrictions(domainCtx, route.restrictionsCheckedByOperation ? 'GET' : method, route);
    enforceOAuthScopes(domainCtx, scopesOf(route, method));
    const fence = route.fence ? claimFenceOf(headers) : undefined;
    ctx = fence === undefined ? domainCtx : { ...domainCtx, claimFence: fence };
  } else {
    if (route.auth === 'platform') requirePlatformOperator(headers);
    ctx = { clock, requestId };
    if (route.optionalCredential && headers['authorization'] !== undefined) {
      const caller = await authenticateRequest(request, clock);
      enforceTokenRestrictions(caller, method, route);
      enforceOAuthScopes(caller, [method === 'GET' || method === 'HEAD' ? 'read' : 'write']);
      ctx = { ...ctx, caller };
    }
  }

  const inputs = {
    params: route.params ? parseInput(route.params, event.pathParameters ?? {}, 'path') : undefined,
    query: route.query ? parseInput(route.query, event.queryStringParameters ?? {}, 'query') : undefined,
    body: route.body ? parseInput(route.body, parseBody(route, headers, bodyText), 'body') : undefined,
    request,
  };
  // An `{orgId}` in the path always names the caller's organization: any other id is unknown (404, never revealed).
  const orgId = (inputs.params as { orgId?: unknown } | undefined)?.orgId;
  if (route.auth === 'credential' && orgId !== undefined && orgId !== (ctx as DomainContext).org.orgId) throw notFound('Organization');
  const result = await route.handler(ctx as never, inputs as never);
  if (route.status === 204) return jsonResponse(204, undefined);
  if (route.raw) {
    const raw = result as RawBody;
    return {
      statusCode: raw.statusCode ?? route.status ?? 200,
      headers: { 'content-type': route.raw.contentType, ...raw.headers },
      body: raw.body,
      isBase64Encoded: raw.isBase64Encoded ?? false,
      ...(raw.cookies?.length ? { cookies: raw.cookies } : {}),
    };
  }
  const body = route.envelope === 'data' ? { data: result } : route.envelope === 'page' ? pageEnvelope(result as Page<unknown>) : result;
  return jsonResponse(route.status ?? 200, body);
}

function bearerOf(headers: Record<string, string | undefined>): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers['authorization'] ?? '');
  if (!match?.[1]) throw unauthenticated();
  return match[1];
}

/**
 * Authenticates the request's bearer credential. A refusal (401) carries the RFC 6750 / RFC
 * 9728 challenge: for a request that names its organization (its own origin, or
 * `X-Organization` on a shared one) it points at the protected resource metadata, so an OAuth
 * client discovers the authorization server by itself, and it says `error="invalid_token"`
 * when a token was sent.
 */
async function authenticateRequest(request: RequestInfo, clock: Clock): Promise<DomainContext> {
  const sent = /^Bearer\s+\S+\s*$/i.test(request.headers['authorization'] ?? '');
  try {
    return await authenticate(bearerOf(request.headers), { slug: request.orgSlug, origin: originOf(request) }, clock, request.requestId);
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 401) throw error;
    const challenge = [
      ...(request.orgSlug ? [`resource_metadata="${resourceMetadataUrl(originOf(request))}"`] : []),
      ...(sent ? ['error="invalid_token"'] : []),
    ];
    throw new AppError(401, error.code, error.message, error.details, { ...error.headers, 'WWW-Authenticate': challenge.length ? `Bearer ${challenge.join(', ')}` : 'Bearer' });
  }
}

/** An OAuth access token reaches only what its route's declared scope allows (RouteScope); 403 names every scope needed. */
function enforceOAuthScopes(ctx: DomainContext, needed: readonly OAuthScope[]): void {
  const granted = ctx.actor.credential.scopes;
  if (!granted) return;
  const missing = needed.filter((scope) => !granted.includes(scope));
  if (missing.length === 0) return;
  throw new AppError(403, 'INSUFFICIENT_SCOPE', `This token lacks the scope ${missing.join(' and ')}`, { required: needed, granted }, {
    'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${needed.join(' ')}"`,
  });
}

/** `X-Claim-Count`: a non-negative integer, or absent. */
function claimFenceOf(headers: Record<string, string | undefined>): number | undefined {
  const value = headers['x-claim-count'];
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) throw new AppError(400, 'VALIDATION_ERROR', 'X-Claim-Count must be a claim count (a non-negative integer)', { issues: [{ path: 'X-Claim-Count', message: 'Not a non-negative integer' }] });
  return Number(value.trim());
}

/** Token restrictions that hold for every route (spec §5.3); board restrictions live in board access. */
function enforceTokenRestrictions(ctx: DomainContext, method: string, route: Route): void {
  const credential = ctx.actor.credential;
  if (credential.readOnly && method !== 'GET' && method !== 'HEAD') {
    throw forbidden('This token is read-only', 'PAT_READ_ONLY');
  }
  if (credential.denyDelete && method === 'DELETE' && !('denyDeleteCheckedByDomain' in route && route.denyDeleteCheckedByDomain)) {
    throw forbidden('This token may not delete', 'PAT_DENY_DELETE');
  }
}

function requirePlatformOperator(headers: Record<string, string | undefined>): void {
  const expected = config().platformAdminTokenSha256;
  const bearer = bearerOf(headers);
  if (!expected || !safeEqual(sha256Hex(bearer), expected)) throw unauthenticated('Invalid platform operator token');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request body as text: at most `maxBytes` (413 otherwise) and valid UTF-8 (400
 * otherwise, never stored with replacement characters). API Gateway passes bodies it treats
 * as binary base64-encoded; so does the local runtime for bytes that are not UTF-8.
 */
function requestBodyText(event: APIGatewayProxyEventV2, maxBytes: number): string | undefined {
  if (!event.body) return undefined;
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (bytes.length > maxBytes) throw new AppError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${maxBytes} bytes`);
  if (!event.isBase64Encoded) return event.body;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new AppError(400, 'VALIDATION_ERROR', 'Request body is not valid UTF-8', { issues: [{ path: 'body', message: 'Not valid UTF-8' }] });
  }
}

const FORM = 'application/x-www-form-urlencoded';
/** `application/json` and structured-syntax `+json` types (RFC 6839), any parameters (a charset) aside. */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.-]+\+)?json$/;

/**
 * The body as an object, read by its declared media type: JSON (`application/json`, with or
 * without a charset, or a `+json` type), or for a `form` route an
 * `application/x-www-form-urlencoded` body (each name once; a repeated one is refused, as RFC
 * 6749 §3.1 says of parameters). A body of any other type, or of none, is refused with 415
 * before anything is read: a `text/plain` body is not JSON, whatever it holds.
 */
function parseBody(route: Route, headers: Record<string, string | undefined>, text: string | undefined): unknown {
  if (!text) return {};
  const contentType = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (JSON_MEDIA_TYPE.test(contentType)) return parseJson(text);
  if (route.bodyFormat === 'form' && contentType === FORM) return parseForm(text);
  const accepted = route.bodyFormat === 'form' ? `${FORM} or application/json` : 'application/json';
  throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `The request body must be ${accepted} (Content-Type: ${contentType || 'none'})`, { accepted: accepted.split(' or ') });
}

function parseForm(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in fields) throw new AppError(400, 'VALIDATION_ERROR', `Parameter ${name} is repeated`, { issues: [{ path: name, message: 'Repeated parameter' }] });
    fields[name] = value;
  }
  return fields;
}

/** Cookies as API Gateway (payload 2.0) passes them, or from a `Cookie` header. */
function cookiesOf(event: APIGatewayProxyEventV2): Record<string, string> {
  const pairs = event.cookies ?? (event.headers?.cookie ?? event.headers?.Cookie ?? '').split(';');
  const cookies: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    if (!(name in cookies)) cookies[name] = pair.slice(at + 1).trim();
  }
  return cookies;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(400, 'VALIDATION_ERROR', 'Request body is not valid JSON', { issues: [{ path: 'body', message: 'Malformed JSON' }] });
  }
}

function lowerCaseHeaders(headers: Record<string, string | undefined>): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) result[name.toLowerCase()] = value;
  return result;
}

function logRequest(event: APIGatewayProxyEventV2, status: number, trace: RequestTrace, ms: number): void {
  if (process.env.LOG_REQUESTS === 'false') return;
  // Route key only: never the path's query string, headers or body, which may carry secrets.
  console.log(JSON.stringify({ msg: 'request', requestId: trace.requestId, route: event.routeKey, status, ms, dbRoundTrips: trace.meter.roundTrips }));
}
