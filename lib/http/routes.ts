import * as z from 'zod';
import type { AnonymousContext, DomainContext } from '../db/context.js';
import type { Operation, OperationScope } from '../core/operation.js';
import type { OAuthScope } from '../oauth/index.js';
import type { CursorPage, Page } from '../core/pages.js';
import type { ErrorCode } from '../core/errors.js';

/*
 * What a route is: its declaration (schemas, the rules it obeys, its handler), the request it
 * receives, and the builders a domain's route map uses. Everything a route obeys is a typed
 * field here, so the author of a new route is asked by the type checker.
 */

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

interface Schemas<P, Q, B, R = unknown, E extends Envelope = Envelope> {
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Success status; 200 unless given. 204 sends no body. */
  status?: number;
  /**
   * The handler may answer null for "nothing to do": the response is then 204 with no body
   * (e.g. claim-next with no ready work). Documented beside the success status.
   */
  emptyStatus?: 204;
  /** Headers an empty answer may carry (name → what it says), for the reference: the handler returns an `EmptyAnswer` with them. */
  emptyHeaders?: Record<string, string>;
  /**
   * How the REST adapter wraps the domain result: `data` → `{data: result}` (single records of
   * the ticket endpoints and the `{data: [...]}` lists, the API reference), `page` → the page envelope
   * of a domain Page, `cursor` → the bare array of a CursorPage's items, with the next page's
   * address in a `Link: <…>; rel="next"` header while there is one. Unset: the result is the body.
   */
  envelope?: E;
  /**
   * What the handler returns (for `envelope: 'page'` or `'cursor'`, one item of the page): the documented
   * success body, checked against every response in test runs. Every route but a 204 has one.
   */
  result?: z.ZodType<R>;
  /** Error codes this route answers beyond those every route of its kind can (lib/http/responses.ts); each code's status is in the catalogue (lib/core/errors.ts). */
  errors?: readonly ErrorCode[];
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
  /**
   * API Gateway's own throttle for this route, below the stage default: a ceiling for all
   * callers together on the routes a flood would aim at (sign-in, sign-up, OAuth). Per-address
   * and per-credential limits are counted by the service.
   */
  edgeThrottle?: EdgeThrottle;
}

/** Steady requests per second and the burst above it (API Gateway answers 429 beyond them). */
export interface EdgeThrottle {
  rateLimit: number;
  burstLimit: number;
}

/**
 * The edge ceilings of the routes that take passwords or mint credentials. Sign-in and the
 * OAuth flow are sized for a large organization's morning (thousands of people signing in over
 * a few minutes); sign-up and client registration are rare by nature.
 */
export const EDGE_THROTTLES = {
  signIn: { rateLimit: 50, burstLimit: 100 },
  signUp: { rateLimit: 5, burstLimit: 10 },
  oauth: { rateLimit: 50, burstLimit: 100 },
  registration: { rateLimit: 5, burstLimit: 10 },
} as const satisfies Record<string, EdgeThrottle>;

type Envelope = 'data' | 'page' | 'cursor' | undefined;

/**
 * What the handler must return for the route's `result`: the schema's output type (so a presenter
 * that drifts from its shape does not compile), a Page of them for `envelope: 'page'`, and a
 * `RawBody` for a raw route (whose body has no result schema).
 */
export type Reply<R, E extends Envelope> = unknown extends R ? unknown : E extends 'page' ? Page<R> : E extends 'cursor' ? CursorPage<R> : R;

/** A handler's "nothing to do" (the route's `emptyStatus`) that carries headers saying why. */
export class EmptyAnswer {
  constructor(readonly headers: Record<string, string>) {}
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
export type TicketRefField = 'ticketId' | 'subticketId' | 'parentTicketId' | 'blockerId';

/**
 * What an OAuth access token needs to call a route (docs/oauth.md): `read` (the route only reads),
 * `write` (it changes something), or `admin` (administration: permission groups, agents,
 * webhook endpoints, git connections, the time-booking sync endpoint, and changes to the
 * organization, users and booking items), which needs `admin` beside `read` or `write` by method.
 */
export type RouteScope = OperationScope;

/** The OAuth scopes a route needs, from its declared scope and its method. */
export function scopesOf(route: { scope: RouteScope }, method: string): OAuthScope[] {
  if (route.scope !== 'admin') return [route.scope];
  return [method === 'GET' || method === 'HEAD' ? 'read' : 'write', 'admin'];
}

export interface AuthenticatedRoute<P = unknown, Q = unknown, B = unknown, R = unknown, E extends Envelope = Envelope> extends Schemas<P, Q, B, R, E> {
  auth: 'credential';
  /** What an OAuth access token needs to call the route (RouteScope); every other credential ignores it. */
  scope: RouteScope;
  /**
   * Lets a `denyDelete` token through this DELETE route; the domain function then decides
   * (releasing one's own claim is allowed, docs/agents.md).
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
   * (`PLAT-12`) as well: resolved to the ticket id before the handler runs (`withTicketRefs`,
   * lib/http/ticket-refs.ts). Declared by every route of a ticket and every route whose input names one.
   */
  ticketRefs?: readonly TicketRefField[];
  /** The domain operation the route offers (`fromOperation`): its scope, fencing, errors and body come from it. */
  operation?: Operation;
  handler: (ctx: DomainContext, input: Inputs<P, Q, B>) => Promise<Reply<R, E> | (E extends 'page' | 'cursor' ? never : null | EmptyAnswer)>;
}

export interface OpenRoute<P = unknown, Q = unknown, B = unknown, R = unknown, E extends Envelope = Envelope> extends Schemas<P, Q, B, R, E> {
  auth: 'none' | 'platform';
  /**
   * A credential is optional here: when one is sent it is authenticated before anything else
   * (401 when it is not valid, restrictions and scopes applied) and given to the handler as
   * `ctx.caller`; without one the route runs anonymously (OAuth registration: confidential with
   * a session, public without).
   */
  optionalCredential?: boolean;
  handler: (ctx: AnonymousContext, input: Inputs<P, Q, B>) => Promise<Reply<R, E>>;
}

// biome-ignore lint/suspicious/noExplicitAny: a map holds routes of every parameter type; handlers are contravariant in them
export type Route = AuthenticatedRoute<any, any, any, any, any> | OpenRoute<any, any, any, any, any>;
export type Routes = Record<string, Route>;

/**
 * A route declared on first use: `build` runs (once) when the route is first read (by the router
 * for a request it matches, by the reference, by the stack), so a function builds the schemas of
 * the routes it serves, not those of every route of its group, at cold start
 * (docs/performance.md, "Cold start"). The route reads the same as if declared outright.
 */
export function onFirstUse<R extends Route>(build: () => R): R {
  let built: R | undefined;
  const route = (): R => {
    built ??= build();
    return built;
  };
  return new Proxy({} as R, {
    get: (_target, key) => Reflect.get(route(), key),
    has: (_target, key) => Reflect.has(route(), key),
    ownKeys: () => Reflect.ownKeys(route()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(route(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}

/** A route reached with any credential of the organization (session, personal, agent token). */
export const authenticated = <P = undefined, Q = undefined, B = undefined, R = unknown, E extends Envelope = undefined>(
  route: Omit<AuthenticatedRoute<P, Q, B, R, E>, 'auth'>,
): NoInfer<AuthenticatedRoute<P, Q, B, R, E>> => ({ ...route, auth: 'credential' });

/**
 * What a route of a domain operation (lib/core/operation.ts) takes from it: the scope, fencing
 * (declared by every route of a ticket), display ids for the ticket it names, the errors, and,
 * for `body: true`, the operation's input as the request body (unknown fields refused).
 */
export function fromOperation<I extends z.ZodObject>(op: Operation<I>, options: { body: true }): OperationRules & { body: z.ZodType<z.output<I>> };
export function fromOperation(op: Operation, options?: { body?: false }): OperationRules;
export function fromOperation(op: Operation, options: { body?: boolean } = {}): OperationRules & { body?: z.ZodType } {
  return {
    operation: op,
    scope: op.scope,
    errors: op.errors,
    ...(op.target === 'ticket' || op.fenced ? { fence: op.fenced } : {}),
    ...(op.target === 'ticket' ? { ticketRefs: ['ticketId'] as const } : {}),
    ...(options.body ? { body: z.lazy(() => op.input().strict()) } : {}),
  };
}

interface OperationRules {
  operation: Operation;
  scope: RouteScope;
  errors: readonly ErrorCode[];
  fence?: boolean;
  ticketRefs?: readonly TicketRefField[];
}

/** A route reached without a credential (signup, login, health). */
export const open = <P = undefined, Q = undefined, B = undefined, R = unknown, E extends Envelope = undefined>(route: Omit<OpenRoute<P, Q, B, R, E>, 'auth'>): NoInfer<OpenRoute<P, Q, B, R, E>> => ({
  ...route,
  auth: 'none',
});

/** A route of the platform operator (PLATFORM_ADMIN_TOKEN). */
export const platform = <P = undefined, Q = undefined, B = undefined, R = unknown, E extends Envelope = undefined>(
  route: Omit<OpenRoute<P, Q, B, R, E>, 'auth'>,
): NoInfer<OpenRoute<P, Q, B, R, E>> => ({ ...route, auth: 'platform' });
