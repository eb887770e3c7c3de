import * as z from 'zod';
import type { Route } from './routes.js';
import { ERRORS, type ErrorCode, oauthCodeOf } from '../core/errors.js';

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

/**
 * Every error status the route can answer, with the codes each can carry (as the route answers
 * them: an OAuth route's in their RFC form) and what each means, from the catalogue
 * (lib/core/errors.ts), which also gives each code its status.
 */
export function errorResponses(routeKey: string, route: Route): Map<number, Map<string, string>> {
  const declared = new Set<ErrorCode>();
  const add = (...codes: readonly ErrorCode[]) => {
    for (const code of codes) declared.add(code);
  };
  const method = routeKey.split(' ')[0];
  // Every request: a body that is not JSON or not UTF-8 or a malformed path, an oversized body, the unexpected.
  add('VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'INTERNAL_ERROR');
  if (route.body) add('UNSUPPORTED_MEDIA_TYPE');
  if (route.auth === 'credential' || route.auth === 'platform' || (route.auth === 'none' && route.optionalCredential)) add('UNAUTHENTICATED');
  if (route.auth === 'credential') {
    add('FORBIDDEN', 'INSUFFICIENT_SCOPE');
    // The general per-credential limit (CREDENTIAL_RATE_LIMIT).
    add('RATE_LIMITED');
    if (method !== 'GET') {
      add('PAT_READ_ONLY');
      // Any write can meet a concurrent one it cannot merge with (a lost race, a taken name).
      add('CONFLICT');
    }
    if (method === 'DELETE') add('PAT_DENY_DELETE');
    // Every POST with a credential takes an Idempotency-Key (lib/db/idempotency.ts).
    if (method === 'POST') add('IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_COMMITTED', 'IDEMPOTENCY_KEY_REUSED');
    if (route.fence) add('CLAIM_SUPERSEDED', 'CLAIM_NOT_HELD');
  }
  if (routeKey.includes('{')) add('NOT_FOUND');
  add(...(route.errors ?? []));
  const errors = new Map<number, Map<string, string>>();
  for (const code of declared) {
    const { status, meaning } = ERRORS[code];
    const answered = route.errorFormat === 'oauth' ? oauthCodeOf(code) : code;
    const codes = errors.get(status) ?? new Map<string, string>();
    // Generic codes an OAuth route answers as one RFC code keep the first meaning.
    if (!codes.has(answered)) codes.set(answered, meaning);
    errors.set(status, codes);
  }
  return new Map([...errors.entries()].sort(([a], [b]) => a - b));
}

export const errorDescription = (status: number): string => describe[status] ?? 'Error';
