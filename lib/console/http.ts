import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as z from 'zod';
import { notFound } from '../core/errors.js';
import { open, type RawBody, type RequestInfo, type Routes, onFirstUse } from '../http/routes.js';
import { addressedSlugOf, subdomainSlugOf } from '../http/organization-slug.js';

/**
 * Routes of the `console` group: the console (docs/console.md), a single-page application built
 * from web/ by Vite. It is served by the service on each organization's own origin, so its only
 * back end is the public API of that origin and its sign-in the authorization server's. The
 * build sits beside the bundle when deployed (copied at synth) and in web/dist locally (built by
 * `npm start`, web/build.ts).
 */

/** The console's pages: /app/<page>[/<id>] all answer the same document; the page is chosen in the browser (the last four need no sign-in). */
export const CONSOLE_PAGES = ['inbox', 'fleet', 'boards', 'agents', 'people', 'join', 'reset', 'forgot', 'outbox'] as const;

/** The folder of the built console beside a deployed bundle. */
export const CONSOLE_ASSET_DIR = 'console';

const consoleDir = (): string =>
  process.env.LAMBDA_TASK_ROOT ? path.join(process.env.LAMBDA_TASK_ROOT, CONSOLE_ASSET_DIR) : fileURLToPath(new URL('../../web/dist', import.meta.url));

/**
 * The page may run only its own scripts and styles from this origin and talk only to this
 * origin; nothing may frame it, and no form may post elsewhere. Its addresses carry the sign-in's
 * one-time code on return, so no referrer leaves it.
 */
const CONSOLE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'cache-control': 'no-cache',
  'content-security-policy': CONSOLE_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const escapeAttribute = (value: string): string => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

let template: string | undefined;

/** The page, with the organization it serves: the subdomain's, else (a shared origin) `?org=`, `X-Organization` or the local default. */
function consolePage(request: RequestInfo, org: string | undefined): RawBody {
  template ??= readFileSync(path.join(consoleDir(), 'index.html'), 'utf8');
  const subdomain = subdomainSlugOf(request.headers);
  const named = subdomain ?? (org && SLUG.test(org) ? org : addressedSlugOf(request.headers));
  const slug = named && SLUG.test(named) ? named : '';
  const body = template
    .replace('<meta name="wm-organization" content="" />', `<meta name="wm-organization" content="${escapeAttribute(slug)}" />`)
    .replace('<meta name="wm-shared-origin" content="" />', `<meta name="wm-shared-origin" content="${subdomain ? 'false' : 'true'}" />`);
  return { body, headers: PAGE_HEADERS };
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

const assets = new Map<string, { type: string; plain: Buffer; gzipped: Buffer }>();

/** A built file of /app/assets: hashed names only, so each is cached for a year. */
function asset(file: string, acceptsGzip: boolean): RawBody {
  const type = CONTENT_TYPES[path.extname(file)];
  if (!type || !/^[\w.-]+$/.test(file)) throw notFound('Asset');
  let found = assets.get(file);
  if (!found) {
    const full = path.join(consoleDir(), 'assets', file);
    if (!existsSync(full)) throw notFound('Asset');
    const plain = readFileSync(full);
    found = { type, plain, gzipped: gzipSync(plain) };
    assets.set(file, found);
  }
  const headers = { 'content-type': found.type, 'cache-control': 'public, max-age=31536000, immutable', vary: 'accept-encoding', 'x-content-type-options': 'nosniff' };
  return acceptsGzip
    ? { body: found.gzipped.toString('base64'), isBase64Encoded: true, headers: { ...headers, 'content-encoding': 'gzip' } }
    : { body: found.plain.toString('base64'), isBase64Encoded: true, headers };
}

const HTML = 'text/html; charset=utf-8';
const pageQuery = z.object({
  org: z.string().max(100).optional().meta({ description: "The organization's slug, on a shared origin only (localhost); else the subdomain's" }),
});
const pageRoute = (summary: string, params?: z.ZodObject) =>
  onFirstUse(() =>
    open({
      summary,
      description: 'The console (a single-page application): the same document for every page of it, never cached. Signing in happens on the authorization server\'s own page (docs/console.md).',
      raw: { contentType: HTML },
      ...(params ? { params } : {}),
      query: pageQuery,
      handler: async (_ctx, { query, request }): Promise<RawBody> => consolePage(request, query.org),
    }),
  );

export const consoleRoutes: Routes = {
  'GET /app': pageRoute('The console'),
  'GET /app/{page}': pageRoute('A page of the console', z.object({ page: z.enum(CONSOLE_PAGES) })),
  'GET /app/{page}/{id}': pageRoute('One item on a page of the console (a board, an agent)', z.object({ page: z.enum(CONSOLE_PAGES), id: z.string().max(100) })),
  'GET /app/boards/{boardId}/tickets/{ticketId}': pageRoute('A ticket in the console', z.object({ boardId: z.string().max(100), ticketId: z.string().max(100) })),
  'GET /app/assets/{file}': onFirstUse(() =>
    open({
      summary: "The console's scripts and styles (hashed names, cached for a year)",
      raw: { contentType: 'application/octet-stream' },
      errors: ['NOT_FOUND'],
      params: z.object({ file: z.string().max(200) }),
      handler: async (_ctx, { params, request }): Promise<RawBody> => asset(params.file, /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')),
    }),
  ),
};
