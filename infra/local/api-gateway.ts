import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError, NotFound } from '../../lib/core/errors.js';
import { errorResponse } from '../../lib/http/respond.js';
import { compileRoutes, matchRoute, pathSegments } from '../../lib/http/route-match.js';

export type HttpLambda = (event: APIGatewayProxyEventV2, context: unknown) => Promise<unknown>;

/** API Gateway's own limit for HTTP API payloads. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/** Node's limit of the request line and headers together (its default); larger ones get 431. */
const MAX_HEADER_BYTES = 16 * 1024;

export interface ApiGatewayOptions {
  /**
   * Takes the source IP from `X-Forwarded-For` (tests use it to act as several clients). Off by
   * default: API Gateway takes it from the connection, and so does `npm start`.
   */
  trustForwardedFor?: boolean;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Plays API Gateway (HTTP API, payload format 2.0): matches `METHOD /path/{param}` route
 * keys the way API Gateway does (lib/http/route-match.ts), builds the v2 event and hands it
 * to the group's Lambda handler, in this process. A request no route matches goes to the
 * `$default` route, as deployed. What API Gateway itself refuses (a body over 10 MB, headers
 * too large, a request that is not HTTP) is answered here in the service's error envelope.
 */
export function createApiGateway(routes: { routeKey: string; handler: HttpLambda }[], options: ApiGatewayOptions = {}): Server {
  const dispatch = createDispatcher(routes);
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    handle(dispatch, req, res, options).catch((error: unknown) => {
      console.error('local api gateway error', error);
      if (!res.headersSent) send(res, errorResponse(error, randomUUID()));
      else res.end();
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => refuseMalformed(error, socket));
  return server;
}

async function handle(dispatch: Dispatch, req: IncomingMessage, res: ServerResponse, options: ApiGatewayOptions): Promise<void> {
  const body = await readBody(req);
  if (body === undefined) {
    return send(res, errorResponse(new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_PAYLOAD_BYTES} bytes`), randomUUID()));
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  send(res, await dispatch({ method: req.method ?? 'GET', url: req.url ?? '/', headers, body, sourceIp: sourceIpOf(req, headers, options), httpVersion: req.httpVersion }));
}

/** A request as the HTTP server read it (or as an in-process client builds it). */
export interface GatewayRequest {
  method: string;
  /** Path and query, as on the request line. */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
  sourceIp: string;
  httpVersion?: string;
}

export type Dispatch = (request: GatewayRequest) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * What API Gateway does between reading a request and writing the answer: match the route key,
 * build the v2 event, call the group's handler. The HTTP server uses it for every request; tests
 * of large matrices call it in process (the same route table and handlers, without a socket).
 */
export function createDispatcher(routes: { routeKey: string; handler: HttpLambda }[]): Dispatch {
  const compiled = compileRoutes(routes.map((route) => route.routeKey));
  const handlers = new Map(routes.map((route) => [route.routeKey, route.handler]));
  return (request) => dispatchOne(compiled, handlers, request);
}

async function dispatchOne(routes: ReturnType<typeof compileRoutes>, handlers: Map<string, HttpLambda>, request: GatewayRequest): Promise<APIGatewayProxyStructuredResultV2> {
  const url = new URL(request.url, 'http://localhost');
  const method = request.method.toUpperCase();
  const requestId = randomUUID();
  const { body } = request;
  const segments = pathSegments(url.pathname);
  const match = segments ? matchRoute(routes, method, segments) : undefined;
  const routeKey = match?.routeKey ?? '$default';
  const handler = handlers.get(routeKey);
  if (!handler) return errorResponse(new NotFound('No such route'), requestId);

  const headers = { ...request.headers };
  // Payload 2.0 passes cookies in `cookies`, apart from the headers.
  const cookies = headers.cookie ? headers.cookie.split(';').map((pair) => pair.trim()).filter(Boolean) : [];
  delete headers.cookie;
  const query: Record<string, string> = {};
  for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key).join(',');
  const now = new Date();
  const text = decodeUtf8(body);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(cookies.length ? { cookies } : {}),
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(match && Object.keys(match.params).length ? { pathParameters: match.params } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion ?? '1.1'}`,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    // Bytes that are not UTF-8 text are passed base64-encoded, as API Gateway passes binary bodies.
    ...(body.length ? (text === undefined ? { body: body.toString('base64'), isBase64Encoded: true } : { body: text, isBase64Encoded: false }) : { isBase64Encoded: false }),
  };
  return (await handler(event, { awsRequestId: requestId })) as APIGatewayProxyStructuredResultV2;
}

function decodeUtf8(body: Buffer): string | undefined {
  try {
    return strictUtf8.decode(body);
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body = result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  if (result.cookies?.length) res.setHeader('set-cookie', result.cookies);
  res.writeHead(result.statusCode ?? 200, { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) });
  res.end(body);
}

/**
 * A request Node cannot parse never reaches a handler: headers over the limit get 431, anything
 * else 400, both in the error envelope, and the connection is closed.
 */
function refuseMalformed(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const response = errorResponse(
    tooLarge
      ? new AppError('HEADERS_TOO_LARGE', `Request headers are larger than ${MAX_HEADER_BYTES} bytes`)
      : new AppError('VALIDATION_ERROR', 'Malformed HTTP request', { issues: [{ path: 'request', message: 'Not a valid HTTP/1.1 request' }] }),
    randomUUID(),
  );
  const body = Buffer.from(response.body ?? '', 'utf8');
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  const head = [`HTTP/1.1 ${response.statusCode} ${reason}`, ...Object.entries(response.headers).map(([name, value]) => `${name}: ${value}`), `content-length: ${body.length}`, 'connection: close', '', ''].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(head, 'utf8'), body]));
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PAYLOAD_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sourceIpOf(req: IncomingMessage, headers: Record<string, string>, options: ApiGatewayOptions): string {
  const forwarded = options.trustForwardedFor ? headers['x-forwarded-for']?.split(',')[0]?.trim() : undefined;
  return forwarded || (req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1');
}
