import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpLambda = (event: APIGatewayProxyEventV2, context: unknown) => Promise<unknown>;

interface CompiledRoute {
  routeKey: string;
  method: string;
  segments: string[];
  handler: HttpLambda;
}

/** API Gateway's own limit for HTTP API payloads. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/**
 * Plays API Gateway (HTTP API, payload format 2.0): matches `METHOD /path/{param}` route
 * keys the way API Gateway does (literal segments win over parameters), builds the v2
 * event and hands it to the group's Lambda handler, in this process.
 */
export interface ApiGatewayOptions {
  /**
   * Takes the source IP from `X-Forwarded-For` (tests use it to act as several clients). Off by
   * default: API Gateway takes it from the connection, and so does `npm start`.
   */
  trustForwardedFor?: boolean;
}

export function createApiGateway(routes: { routeKey: string; handler: HttpLambda }[], options: ApiGatewayOptions = {}): Server {
  const compiled: CompiledRoute[] = routes.map(({ routeKey, handler }) => {
    const [method, path] = routeKey.split(' ') as [string, string];
    return { routeKey, method, segments: path.split('/').filter(Boolean), handler };
  });
  return createServer((req, res) => {
    handle(compiled, req, res, options).catch((error: unknown) => {
      console.error('local api gateway error', error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Internal Server Error' }));
    });
  });
}

async function handle(routes: CompiledRoute[], req: IncomingMessage, res: ServerResponse, options: ApiGatewayOptions): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = (req.method ?? 'GET').toUpperCase();
  const match = matchRoute(routes, method, url.pathname);
  const body = await readBody(req);
  if (body === undefined) return send(res, { statusCode: 413, body: JSON.stringify({ message: 'Request Entity Too Large' }) });
  if (!match) return send(res, { statusCode: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Not Found' }) });

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key).join(',');
  const now = new Date();
  const requestId = randomUUID();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: match.route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(match.params).length ? { pathParameters: match.params } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: sourceIpOf(req, headers, options),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: match.route.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: body.toString('utf8') } : {}),
    isBase64Encoded: false,
  };
  const result = (await match.route.handler(event, { awsRequestId: requestId })) as APIGatewayProxyStructuredResultV2;
  send(res, result);
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body = result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  res.writeHead(result.statusCode ?? 200, { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) });
  res.end(body);
}

function matchRoute(routes: CompiledRoute[], method: string, pathname: string) {
  const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let best: { route: CompiledRoute; params: Record<string, string>; literalMask: string } | undefined;
  for (const route of routes) {
    if (route.method !== method || route.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let literalMask = '';
    let ok = true;
    route.segments.forEach((segment, index) => {
      const value = segments[index]!;
      if (segment.startsWith('{') && segment.endsWith('}')) {
        params[segment.slice(1, -1)] = value;
        literalMask += '0';
      } else if (segment === value) {
        literalMask += '1';
      } else {
        ok = false;
      }
    });
    // API Gateway prefers the route whose earliest segments are literal.
    if (ok && (!best || literalMask > best.literalMask)) best = { route, params, literalMask };
  }
  return best;
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
