import * as z from 'zod';
import type { Route } from './routes.js';

/**
 * What a route answers, derived from its declaration: the success status and body (the route's
 * `result` schema inside its envelope) and every error status with the codes it can carry. The
 * OpenAPI generator documents exactly this, and in test runs the router checks every response
 * against it (VALIDATE_RESPONSES), so the reference cannot drift from what the service sends.
 */

/** The error envelope every error response carries. */
export const errorBody = z
  .strictObject({
    error: z.strictObject({
      code: z.string().meta({ description: 'Stable machine-readable code (e.g. `NOT_FOUND`, `CLAIM_LIMIT_REACHED`)' }),
      message: z.string().meta({ description: 'Human-readable explanation; may change between releases' }),
      details: z.record(z.string(), z.unknown()).optional().meta({ description: 'Code-specific fields, e.g. `issues` of a validation error' }),
      requestId: z.string().meta({ description: 'The request id, also sent as the `x-request-id` header' }),
    }),
  })
  .meta({ id: 'Error' });

/** The error body of OAuth routes (RFC 6749 §5.2, RFC 7591 §3.2.2). */
export const oauthErrorBody = z
  .strictObject({
    error: z.string().meta({ description: 'OAuth error code (e.g. `invalid_grant`, `invalid_client`, `invalid_redirect_uri`)' }),
    error_description: z.string().meta({ description: 'Human-readable explanation' }),
  })
  .meta({ id: 'OAuthError' });

/** The page envelope of paginated lists: `data`, exact `total`, `page`, `pageSize`, `totalPages`. */
export function pageBody(item: z.ZodType): z.ZodType {
  return z.strictObject({
    data: z.array(item),
    total: z.number().int().min(0).meta({ description: 'Exact number of matching items' }),
    page: z.number().int().min(1),
    pageSize: z.number().int().min(1),
    totalPages: z.number().int().min(0),
  });
}

/** The body of a route's success response, or undefined for 204 (no body). */
export function successBody(route: Route): z.ZodType | undefined {
  if (successStatus(route) === 204 || !route.result) return undefined;
  if (route.envelope === 'page') return pageBody(route.result);
  if (route.envelope === 'cursor') return z.array(route.result);
  if (route.envelope === 'data') return z.strictObject({ data: route.result });
  return route.result;
}

export const successStatus = (route: Route): number => route.status ?? 200;

const describe: Record<number, string> = {
  400: 'The request is invalid (`VALIDATION_ERROR` with `details.issues`); nothing was changed',
  401: 'No valid credential',
  403: 'The credential may not do this',
  404: 'Not found, or not visible to the caller',
  405: 'The path exists with other methods (`Allow` lists them)',
  409: 'Conflicts with the current state; nothing was changed',
  413: 'The request body is too large',
  422: 'The idempotency key was used before with a different request; nothing was changed',
  415: 'The request body is not of a media type the route reads (JSON; form-encoded for OAuth forms); nothing was changed',
  429: 'Too many requests; retry after `Retry-After` seconds',
  500: 'Unexpected error; nothing internal is revealed',
};

/** Every error status the route can answer, with the codes each can carry. */
export function errorResponses(routeKey: string, route: Route): Map<number, Set<string>> {
  const errors = new Map<number, Set<string>>();
  const add = (status: number, ...codes: string[]) => {
    const known = errors.get(status) ?? new Set<string>();
    for (const code of codes) known.add(code);
    errors.set(status, known);
  };
  const method = routeKey.split(' ')[0];
  // Every request: a body that is not JSON or not UTF-8 or a malformed path, an oversized body, the unexpected.
  add(400, 'VALIDATION_ERROR');
  add(413, 'PAYLOAD_TOO_LARGE');
  add(500, 'INTERNAL_ERROR');
  if (route.body) add(415, 'UNSUPPORTED_MEDIA_TYPE');
  if (route.auth === 'credential' || route.auth === 'platform' || (route.auth === 'none' && route.optionalCredential)) add(401, 'UNAUTHENTICATED');
  if (route.auth === 'credential') {
    add(403, 'FORBIDDEN', 'INSUFFICIENT_SCOPE');
    // The general per-credential limit (CREDENTIAL_RATE_LIMIT).
    add(429, 'RATE_LIMITED');
    if (method !== 'GET') {
      add(403, 'PAT_READ_ONLY');
      // Any write can meet a concurrent one it cannot merge with (a lost race, a taken name).
      add(409, 'CONFLICT');
    }
    if (method === 'DELETE') add(403, 'PAT_DENY_DELETE');
    // Every POST with a credential takes an Idempotency-Key (lib/db/idempotency.ts).
    if (method === 'POST') {
      add(409, 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_COMMITTED');
      add(422, 'IDEMPOTENCY_KEY_REUSED');
    }
    if (route.fence) add(409, 'CLAIM_SUPERSEDED', 'CLAIM_NOT_HELD');
  }
  if (routeKey.includes('{')) add(404, 'NOT_FOUND');
  for (const [status, codes] of Object.entries(route.errors ?? {})) add(Number(status), ...(codes ?? []));
  if (route.errorFormat === 'oauth') {
    // The generic codes as an OAuth route answers them (lib/http/respond.ts).
    const generic: Record<string, string> = { VALIDATION_ERROR: 'invalid_request', PAYLOAD_TOO_LARGE: 'invalid_request', UNSUPPORTED_MEDIA_TYPE: 'invalid_request', UNAUTHENTICATED: 'invalid_token', FORBIDDEN: 'access_denied', INTERNAL_ERROR: 'server_error' };
    for (const [status, codes] of errors) errors.set(status, new Set([...codes].map((code) => generic[code] ?? code.toLowerCase())));
  }
  return new Map([...errors.entries()].sort(([a], [b]) => a - b));
}

export const errorDescription = (status: number): string => describe[status] ?? 'Error';
