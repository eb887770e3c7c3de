import { AppError, oauthCodeOf } from '../core/errors.js';
import { log } from '../core/telemetry.js';

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** `Set-Cookie` values (API Gateway payload 2.0 sends each as its own header). */
  cookies?: string[];
  body?: string;
  /** The body is base64 of bytes (e.g. a gzip-compressed asset). */
  isBase64Encoded?: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  if (statusCode === 204 || body === undefined) return { statusCode, headers: { ...headers } };
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/**
 * The one place where errors become HTTP responses: the service's envelope (docs/design/errors.md), or
 * for OAuth routes RFC 6749 §5.2 JSON (`{error, error_description}`, never cached).
 */
export function errorResponse(error: unknown, requestId: string, format?: 'oauth'): HttpResponse {
  if (format === 'oauth') {
    const known = error instanceof AppError ? error : undefined;
    if (!known) log.error('unhandled error', { requestId }, error);
    return jsonResponse(
      known?.status ?? 500,
      { error: known ? oauthCodeOf(known.code) : 'server_error', error_description: known?.message ?? 'Internal error' },
      { ...known?.headers, pragma: 'no-cache' },
    );
  }
  if (error instanceof AppError) {
    return jsonResponse(
      error.status,
      { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}), requestId } },
      error.headers,
    );
  }
  log.error('unhandled error', { requestId }, error);
  return jsonResponse(500, { error: { code: 'INTERNAL_ERROR', message: 'Internal error', requestId } });
}
