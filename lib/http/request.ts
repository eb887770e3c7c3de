import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { AppError } from '../core/errors.js';
import type { Route } from './routes.js';

/*
 * Reading a request: its body as text (size, UTF-8), the body by its media type, headers,
 * cookies, and the claim a ticket write names. Nothing here authenticates or decides.
 */

/** `X-Claim-Count`: a non-negative integer, or absent. */
export function claimFenceOf(headers: Record<string, string | undefined>): number | undefined {
  const value = headers['x-claim-count'];
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) throw new AppError('VALIDATION_ERROR', 'X-Claim-Count must be a claim count (a non-negative integer)', { issues: [{ path: 'X-Claim-Count', message: 'Not a non-negative integer' }] });
  return Number(value.trim());
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request body as text: at most `maxBytes` (413 otherwise) and valid UTF-8 (400
 * otherwise, never stored with replacement characters). API Gateway passes bodies it treats
 * as binary base64-encoded; so does the local runtime for bytes that are not UTF-8.
 */
export function requestBodyText(event: APIGatewayProxyEventV2, maxBytes: number): string | undefined {
  if (!event.body) return undefined;
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (bytes.length > maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${maxBytes} bytes`);
  if (!event.isBase64Encoded) return event.body;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Request body is not valid UTF-8', { issues: [{ path: 'body', message: 'Not valid UTF-8' }] });
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
export function parseBody(route: Route, headers: Record<string, string | undefined>, text: string | undefined): unknown {
  if (!text) return {};
  const contentType = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (JSON_MEDIA_TYPE.test(contentType)) return parseJson(text);
  if (route.bodyFormat === 'form' && contentType === FORM) return parseForm(text);
  const accepted = route.bodyFormat === 'form' ? `${FORM} or application/json` : 'application/json';
  throw new AppError('UNSUPPORTED_MEDIA_TYPE', `The request body must be ${accepted} (Content-Type: ${contentType || 'none'})`, { accepted: accepted.split(' or ') });
}

function parseForm(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in fields) throw new AppError('VALIDATION_ERROR', `Parameter ${name} is repeated`, { issues: [{ path: name, message: 'Repeated parameter' }] });
    fields[name] = value;
  }
  return fields;
}

/** Cookies as API Gateway (payload 2.0) passes them, or from a `Cookie` header. */
export function cookiesOf(event: APIGatewayProxyEventV2): Record<string, string> {
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

/** How deep a JSON body may nest its arrays and objects: deeper bodies are refused before they are parsed or walked. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text nests arrays and objects deeper than `max`, read in one pass over the
 * text (brackets outside strings), without parsing it and without recursion: a body of thousands
 * of `[` must not reach code that walks the parsed value recursively.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > max) return true;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return false;
}

/** 400 VALIDATION_ERROR for a body nested deeper than MAX_JSON_DEPTH. */
export function nestingTooDeep(): AppError {
  return new AppError('VALIDATION_ERROR', `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, {
    issues: [{ path: 'body', message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }],
    maxDepth: MAX_JSON_DEPTH,
  });
}

function parseJson(text: string): unknown {
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) throw nestingTooDeep();
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Request body is not valid JSON', { issues: [{ path: 'body', message: 'Malformed JSON' }] });
  }
}

export function lowerCaseHeaders(headers: Record<string, string | undefined>): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) result[name.toLowerCase()] = value;
  return result;
}
