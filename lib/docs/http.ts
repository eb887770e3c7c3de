import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as z from 'zod';
import { embedded } from '../core/embedded.js';
import { open, originOf, type RawBody, type Routes, onFirstUse } from '../http/routes.js';

/** The docs page's renderer (Redoc's standalone build), served by this service: no CDN. */
export const REFERENCE_RENDERER = 'redoc/bundles/redoc.standalone.js';
const RENDERER_FILE = path.basename(REFERENCE_RENDERER);

/**
 * Routes of the `docs` group: the reference of the API, readable without a credential.
 * The OpenAPI document is generated from the route maps (lib/docs/openapi.ts) when the stack
 * is synthesized and inlined into this function (lib/core/embedded.ts), so this function
 * bundles no domain code.
 */
export const docsRoutes: Routes = {
  'GET /': onFirstUse(() =>
    open({
      summary: 'Index: where the reference, the OpenAPI document and the health check are',
      result: z
        .strictObject({ name: z.string(), version: z.string(), docs: z.string(), openapi: z.string(), health: z.string() })
        .meta({ id: 'Index' }),
      handler: async (_ctx, { request }) => {
        const origin = originOf(request);
        return { name: 'Work-management API', version: openApi().info.version, docs: `${origin}/docs`, openapi: `${origin}/api/v1/openapi.json`, health: `${origin}/healthz` };
      },
    }),
  ),
  'GET /api/v1/openapi.json': onFirstUse(() =>
    open({
      summary: 'This document (OpenAPI 3.1), with the server this request reached',
      result: z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }),
      handler: async (_ctx, { request }) => ({ ...openApi(), servers: [{ url: originOf(request), description: 'The organization this request reached' }] }),
    }),
  ),
  'GET /docs': onFirstUse(() =>
    open({
      summary: 'The API reference as a web page',
      raw: { contentType: 'text/html; charset=utf-8' },
      handler: async (): Promise<RawBody> => ({ body: DOCS_PAGE, headers: { 'cache-control': 'no-cache', 'content-security-policy': DOCS_PAGE_POLICY } }),
    }),
  ),
  [`GET /docs/${RENDERER_FILE}`]: open({
    summary: "The docs page's renderer script",
    raw: { contentType: 'application/javascript; charset=utf-8' },
    handler: async (_ctx, { request }): Promise<RawBody> => rendererScript(/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')),
  }),
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Work-management API reference</title>
  <style>body { margin: 0; }</style>
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/${RENDERER_FILE}"></script>
  <script>Redoc.init('/api/v1/openapi.json', { hideDownloadButton: false, expandResponses: '200,201' }, document.getElementById('reference'));</script>
</body>
</html>
`;

/**
 * The page loads only from this service: the renderer, the document, the renderer's inline
 * styles and its search worker. (Redoc's credit logo, which it would fetch from a CDN, is served
 * inline; the policy would keep the browser from asking anyway.)
 */
const DOCS_PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The document written beside the bundle at synth (lib/http/openapi.ts), as far as this file reads it. */
interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string };
  paths: Record<string, unknown>;
}

let document: OpenApiDocument | undefined;

function openApi(): OpenApiDocument {
  document ??= JSON.parse(embedded('OPENAPI_DOCUMENT')) as OpenApiDocument;
  return document;
}

let script: { plain: string; gzipped: string } | undefined;

/** The renderer's credit logo, which it would load from Redocly's CDN. */
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
/** The same credit as an inline image, so the page asks nothing of any other host (the link to redocly.com stays). */
const INLINE_LOGO = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' width='96' height='16'><text x='0' y='12' font-family='sans-serif' font-size='11' fill='#888'>API docs by Redocly</text></svg>",
)}`;

/** The renderer: beside the bundle when deployed (copied at synth), from node_modules when run from source; its credit logo inlined. */
function rendererScript(gzip: boolean): RawBody {
  if (!script) {
    const deployed = process.env.LAMBDA_TASK_ROOT ? path.join(process.env.LAMBDA_TASK_ROOT, RENDERER_FILE) : undefined;
    const file = deployed ?? createRequire(import.meta.url).resolve(REFERENCE_RENDERER);
    const bytes = Buffer.from(readFileSync(file, 'utf8').replaceAll(CDN_LOGO, INLINE_LOGO), 'utf8');
    script = { plain: bytes.toString('utf8'), gzipped: gzipSync(bytes).toString('base64') };
  }
  const caching = { 'cache-control': 'public, max-age=3600', vary: 'accept-encoding' };
  return gzip ? { body: script.gzipped, isBase64Encoded: true, headers: { ...caching, 'content-encoding': 'gzip' } } : { body: script.plain, headers: caching };
}
