import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, inject, it } from 'vitest';
import { allRouteKeys, httpGroups } from '../../infra/route-table.js';
import { API_INFO } from '../../infra/embeds.js';
import { openApiDocument } from '../../lib/http/openapi.js';
import { api } from '../support/api.js';

const run = promisify(execFile);

/*
 * The API reference is generated from the route maps and served by the service itself. These
 * tests hold it to the standard (a validator for OpenAPI 3.1) and to the route table (every
 * route is in it, every route declares its response). That every response the service sends
 * matches the reference is checked on every request of every test (VALIDATE_RESPONSES).
 */
describe('the API reference', () => {
  it('serves the OpenAPI 3.1 document without a credential, and it is valid', async () => {
    const response = await api('GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(response.body.servers).toEqual([{ url: inject('baseUrl'), description: expect.any(String) }]);
  });

  it('lints clean with Redocly CLI (its recommended rules, the one exception in redocly.yaml)', async () => {
    // The document as generated (a deployment embeds it); the served copy differs only in naming the origin reached.
    const document = openApiDocument(httpGroups(), API_INFO);
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
    try {
      writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(document));
      const lint = await run(process.execPath, ['node_modules/@redocly/cli/bin/cli.js', 'lint', path.join(dir, 'openapi.json'), '--config', 'redocly.yaml', '--format', 'json'], {
        timeout: 60_000,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
      const report = JSON.parse(lint.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
      expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('documents the MCP endpoint\'s answers as JSON-RPC messages, not strings', async () => {
    const document = (await api('GET', '/api/v1/openapi.json')).body;
    const responses = document.paths['/api/v1/mcp'].post.responses as Record<string, { content?: Record<string, { schema: { $ref?: string; type?: string } }> }>;
    for (const status of ['200', '400', '406']) expect(responses[status]!.content!['application/json']!.schema.$ref).toBe('#/components/schemas/JsonRpcMessage');
    expect(document.components.schemas.JsonRpcMessage.properties.error.properties.code.type).toBe('integer');
  });

  it('documents every route of the route table, with a unique operation id', async () => {
    const document = (await api('GET', '/api/v1/openapi.json')).body;
    const documented = Object.entries(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const routes = allRouteKeys().filter((key) => key !== '$default');
    expect(documented.sort()).toEqual([...routes].sort());
    const ids = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has every route declare its success response (all but 204 and the docs page assets)', () => {
    const undeclared = httpGroups().flatMap((group) =>
      Object.entries(group.routes)
        .filter(([key, route]) => key !== '$default' && route.status !== 204 && !route.raw && !route.result)
        .map(([key]) => key),
    );
    expect(undeclared).toEqual([]);
  });

  it('describes the claim route: body, success response and the errors it answers', async () => {
    const document = (await api('GET', '/api/v1/openapi.json')).body;
    const claim = document.paths['/api/v1/boards/{boardId}/tickets/{ticketId}/claim'].post;
    expect(claim.operationId).toBe('postBoardsByBoardIdTicketsByTicketIdClaim');
    expect(claim.security).toEqual([{ bearer: [] }]);
    expect(claim.parameters.map((parameter: { name: string; in: string }) => `${parameter.in}:${parameter.name}`).sort()).toEqual(['header:idempotency-key', 'path:boardId', 'path:ticketId']);
    expect(Object.keys(claim.requestBody.content['application/json'].schema.properties).sort()).toEqual(['assign', 'leaseSeconds']);
    expect(Object.keys(claim.responses).sort()).toEqual(['201', '400', '401', '403', '404', '409', '413', '415', '422', '429', '500']);
    expect(claim.responses['409'].description).toContain('IDEMPOTENCY_KEY_IN_USE');
    expect(claim.responses['422'].description).toContain('IDEMPOTENCY_KEY_REUSED');
    expect(claim.responses['429'].description).toContain('RATE_LIMITED');
    expect(claim.responses['415'].description).toContain('UNSUPPORTED_MEDIA_TYPE');
    expect(claim.responses['403'].description).toContain('CLAIM_LIMIT_REACHED');
    expect(claim.responses['409'].description).toContain('TICKET_ALREADY_CLAIMED');
    expect(claim.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ClaimOutcome' });
  });

  it('answers GET / with an index of links that all work', async () => {
    const index = await api('GET', '/');
    expect(index.status).toBe(200);
    expect(index.body).toEqual({
      name: 'Work-management API',
      version: expect.any(String),
      docs: `${inject('baseUrl')}/docs`,
      openapi: `${inject('baseUrl')}/api/v1/openapi.json`,
      health: `${inject('baseUrl')}/healthz`,
    });
    for (const link of [index.body.docs, index.body.openapi, index.body.health]) expect((await fetch(link)).status, link).toBe(200);
  });

  it('serves the docs page and its renderer from the service itself, compressed when the client accepts gzip', async () => {
    const page = await fetch(`${inject('baseUrl')}/docs`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<script src="/docs/redoc.standalone.js"></script>');
    expect(html).toContain("Redoc.init('/api/v1/openapi.json'");
    expect(html).not.toMatch(/https?:\/\//); // nothing from a CDN

    const plain = await raw('/docs/redoc.standalone.js', {});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzipped = await raw('/docs/redoc.standalone.js', { 'accept-encoding': 'gzip, deflate' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
  });
});

/** A request whose body is returned as the bytes sent (fetch would decompress it). */
function raw(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpRequest(new URL(path, inject('baseUrl')), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
