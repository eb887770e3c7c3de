import middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { AppError, notFound, NotFound } from '../core/errors.js';
import { systemClock, type Clock } from '../core/clock.js';
import { newId, sha256Hex } from '../core/ids.js';
import type { AnonymousContext, DomainContext } from '../db/context.js';
import { newMeter, withRoundTripMeter, type RoundTripMeter } from '../db/client.js';
import { errorResponse, jsonResponse, type HttpResponse } from './respond.js';
import { organizationSlugOf } from './organization-slug.js';
import { parseInput } from './validation.js';
import { malformedPath, pathSegments } from './route-match.js';
import { pageEnvelope } from './pagination.js';
import { nonConformance } from './conformance.js';
import { withDeclaredEmits } from '../core/operation.js';
import type { CursorPage, Page } from '../core/pages.js';
import { log, publishRequestMetrics, takeColdStart } from '../core/telemetry.js';
import { idempotencyKeyOf, runIdempotently } from '../db/idempotency.js';
import { collectRateLimits, countInWindow, rateLimitHeaders, rateWindow, type RateLimitState } from '../db/rate-limit.js';
import { config } from '../core/config.js';
import { EmptyAnswer, scopesOf, type RawBody, type RequestInfo, type Routes } from './routes.js';
import { authenticateRequest, bearerOf, enforceOAuthScopes, enforceTokenRestrictions, requirePlatformOperator } from './access.js';
import { claimFenceOf, cookiesOf, lowerCaseHeaders, parseBody, requestBodyText } from './request.js';

/** Largest accepted request body unless a route says otherwise (a wiki page's routes admit more). */
const MAX_BODY_BYTES = 1_100_000;

export interface HttpHandlerOptions {
  clock?: Clock;
}


interface RequestTrace {
  requestId: string;
  meter: RoundTripMeter;
  started: number;
  coldStart: boolean;
  /** Who asked, once authenticated: for the log line (ids only). */
  orgId?: string;
  actorId?: string;
  /** The rate-limit windows the request was counted in (lib/db/rate-limit.ts). */
  rateLimits: RateLimitState[];
}

type HttpRequest = middy.Request<APIGatewayProxyEventV2, HttpResponse>;

const traces = new WeakMap<object, RequestTrace>();
const traceOf = (request: HttpRequest): RequestTrace => traces.get(request.context as object)!;

/**
 * Middleware: gives the invocation its request id (API Gateway's) and round-trip meter before
 * anything runs, and afterwards (success or error) sets `x-request-id` (and, in tests,
 * `x-db-round-trips` and `x-db-read-units`) and writes the request's log line.
 */
function requestTrace(): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResponse> {
  const finish = (request: HttpRequest) => {
    const trace = traceOf(request);
    const response = request.response!;
    response.headers['x-request-id'] = trace.requestId;
    // Every response of a limited route says where its caller stands (a 429 already does).
    if (!response.headers.RateLimit && !response.headers.ratelimit) Object.assign(response.headers, rateLimitHeaders(trace.rateLimits));
    if (process.env.EXPOSE_ROUND_TRIPS === 'true') {
      response.headers['x-db-round-trips'] = String(trace.meter.roundTrips);
      response.headers['x-db-read-units'] = String(trace.meter.readUnits);
    }
    const ms = Date.now() - trace.started;
    logRequest(request.event, response.statusCode, trace, ms);
    publishRequestMetrics(response.statusCode, ms);
  };
  return {
    before: (request) => {
      request.context ??= {} as never;
      const requestId = request.event.requestContext?.requestId || newId('evt').replace('evt_', 'req_');
      // Consumed capacity is asked for on DynamoDB (free); on DynamoDB Local (the local runtime) only when a request asks (benchmarks, tests).
      const capacity = !process.env.DYNAMODB_ENDPOINT || request.event.headers?.['x-db-capacity'] === 'true';
      traces.set(request.context as object, { requestId, meter: newMeter(capacity), started: Date.now(), coldStart: takeColdStart(), rateLimits: [] });
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
    log.error('response does not match the reference', { route: request.event.routeKey, status: request.response.statusCode, problem });
    request.response = errorResponse(new AppError('INTERNAL_ERROR', 'The response does not match the API reference', { mismatch: problem, status: request.response.statusCode, body: request.response.body?.slice(0, 2000) }), traceOf(request).requestId);
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
      return withRoundTripMeter(trace.meter, () => collectRateLimits(trace.rateLimits, () => handleRoute(routes, event, trace, clock)));
    });
}

async function handleRoute(routes: Routes, event: APIGatewayProxyEventV2, trace: RequestTrace, clock: Clock): Promise<HttpResponse> {
  const { requestId } = trace;
  const route = routes[event.routeKey];
  if (!route) throw new NotFound('No such route');
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
    // The per-credential limit is counted beside authentication, never after it: no sequential round trip.
    const [domainCtx] = await Promise.all([authenticateRequest(request, clock), countCredentialCall(headers, clock)]);
    noteCaller(trace, domainCtx);
    enforceTokenRestrictions(domainCtx, route.restrictionsCheckedByOperation ? 'GET' : method, route);
    enforceOAuthScopes(domainCtx, scopesOf(route, method));
    const fence = route.fence ? claimFenceOf(headers) : undefined;
    ctx = fence === undefined ? domainCtx : { ...domainCtx, claimFence: fence };
  } else {
    if (route.auth === 'platform') requirePlatformOperator(headers);
    ctx = { clock, requestId };
    if (route.optionalCredential && headers.authorization !== undefined) {
      const caller = await authenticateRequest(request, clock);
      noteCaller(trace, caller);
      enforceTokenRestrictions(caller, method, route);
      enforceOAuthScopes(caller, [method === 'GET' || method === 'HEAD' ? 'read' : 'write']);
      ctx = { ...ctx, caller };
    }
  }

  const answerIt = () => answerRoute(route, event, ctx, request, bodyText, headers);
  // Test runs: a route of an operation may write only the events and jobs the operation declares.
  const operation = route.auth === 'credential' ? route.operation : undefined;
  const respond = operation && process.env.VALIDATE_RESPONSES === 'true' ? () => withDeclaredEmits(operation, answerIt) : answerIt;
  // A POST with a credential may carry an Idempotency-Key: its first answer is kept and given again.
  const idempotencyKey = route.auth === 'credential' && method === 'POST' ? idempotencyKeyOf(headers['idempotency-key']) : undefined;
  if (idempotencyKey === undefined) return respond();
  const { org, actor } = ctx as DomainContext;
  const payload = `${method} ${event.rawPath}?${event.rawQueryString ?? ''}\n${bodyText ?? ''}`;
  const { answer, replayed } = await runIdempotently(
    { orgId: org.orgId, actorId: actor.userId, key: idempotencyKey, payload, requestId, clock },
    respond,
    (response) => response.statusCode >= 200 && response.statusCode < 300,
  );
  return replayed ? { ...answer, headers: { ...answer.headers, 'idempotent-replayed': 'true' } } : answer;
}

/** Parses the path, query and body, runs the handler and shapes its answer (the envelope, or a raw body). */
async function answerRoute(
  route: Routes[string],
  event: APIGatewayProxyEventV2,
  ctx: DomainContext | AnonymousContext,
  request: RequestInfo,
  bodyText: string | undefined,
  headers: Record<string, string | undefined>,
): Promise<HttpResponse> {
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
  if (result === null && route.emptyStatus) return jsonResponse(route.emptyStatus, undefined);
  if (result instanceof EmptyAnswer && route.emptyStatus) return jsonResponse(route.emptyStatus, undefined, result.headers);
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
  if (route.envelope === 'cursor') {
    const { items, next } = result as CursorPage<unknown>;
    return jsonResponse(route.status ?? 200, items, next ? { link: `<${nextPageAddress(event, next)}>; rel="next"` } : {});
  }
  const body = route.envelope === 'data' ? { data: result } : route.envelope === 'page' ? pageEnvelope(result as Page<unknown>) : result;
  return jsonResponse(route.status ?? 200, body);
}

/** The request's own path and query with `before` set to the next page's cursor (a cursor route's `Link`). */
function nextPageAddress(event: APIGatewayProxyEventV2, cursor: string): string {
  const query = new URLSearchParams(Object.entries(event.queryStringParameters ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));
  query.set('before', cursor);
  return `${event.rawPath}?${query}`;
}

/** Who asked, for the request's log line (ids only). */
function noteCaller(trace: RequestTrace, caller: DomainContext): void {
  trace.orgId = caller.org.orgId;
  trace.actorId = caller.actor.userId;
}

/**
 * The general per-credential limit (CREDENTIAL_RATE_LIMIT requests a minute; 0 turns it off):
 * one window per credential, keyed by a hash of the bearer value, so it is counted before the
 * credential is known to be valid and no partition is shared between credentials.
 */
async function countCredentialCall(headers: Record<string, string | undefined>, clock: Clock): Promise<void> {
  const limit = config().credentialRateLimit;
  if (!limit || !headers.authorization) return;
  // Keyed by the credential as authentication reads it (scheme in any case, any spacing), never the header as sent:
  // `bearer x`, `BEARER  x` and `Bearer\tx` are one credential and share one window.
  const credential = sha256Hex(bearerOrRaw(headers));
  const now = clock.now();
  await countInWindow(rateWindow('credential', `credential#${credential}`, limit, 60, now), now, `At most ${limit} requests a minute with one credential; retry later`);
}

/** The bearer value authentication would read; a header it would refuse is keyed as sent (it fails authentication anyway). */
function bearerOrRaw(headers: Record<string, string | undefined>): string {
  try {
    return bearerOf(headers);
  } catch {
    return `raw ${headers.authorization}`;
  }
}

function logRequest(event: APIGatewayProxyEventV2, status: number, trace: RequestTrace, ms: number): void {
  // Route key only: never the path's query string, headers or body, which may carry secrets.
  log.info('request', {
    requestId: trace.requestId,
    route: event.routeKey,
    status,
    ms,
    dbRoundTrips: trace.meter.roundTrips,
    dbReadUnits: trace.meter.readUnits,
    dbWriteUnits: trace.meter.writeUnits,
    orgId: trace.orgId,
    actorId: trace.actorId,
    coldStart: trace.coldStart,
  });
}
