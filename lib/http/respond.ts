import { AppError } from '../core/errors.js';

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
  /** The body is base64 of bytes (e.g. a gzip-compressed asset). */
  isBase64Encoded?: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  if (statusCode === 204 || body === undefined) return { statusCode, headers: { ...headers } };
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** The one place where errors become HTTP responses (DESIGN.md §4 envelope). */
export function errorResponse(error: unknown, requestId: string): HttpResponse {
  if (error instanceof AppError) {
    return jsonResponse(
      error.status,
      { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}), requestId } },
      error.headers,
    );
  }
  console.error(JSON.stringify({ msg: 'unhandled error', requestId, error: error instanceof Error ? error.stack : String(error) }));
  return jsonResponse(500, { error: { code: 'INTERNAL_ERROR', message: 'Internal error', requestId } });
}
