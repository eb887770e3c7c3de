import { beforeAll, describe, expect, inject, it } from 'vitest';
import { request } from 'node:http';
import { signupOrg, type TestOrg } from '../support/api.js';

/** One raw request (bytes as given, any header), for what the API helper cannot send. */
function raw(method: string, path: string, options: { headers?: Record<string, string>; body?: Buffer } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    const req = request(new URL(path, inject('baseUrl')), { method, headers: { ...options.headers, ...(options.body ? { 'content-length': String(options.body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function expectEnvelope(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.body.error).toMatchObject({ code, message: expect.any(String), requestId: expect.any(String) });
}

describe('every error has the documented envelope', () => {
  let org: TestOrg;
  let auth: Record<string, string>;
  beforeAll(async () => {
    org = await signupOrg();
    auth = { authorization: `Bearer ${org.adminToken}`, 'x-organization': org.slug, 'content-type': 'application/json' };
  });

  it('answers an unknown route with 404 NOT_FOUND', async () => {
    expectEnvelope(await raw('GET', '/api/v1/no-such-thing'), 404, 'NOT_FOUND');
    expectEnvelope(await raw('GET', '/favicon.ico'), 404, 'NOT_FOUND');
    expectEnvelope(await raw('POST', '/api/v1/boards/brd_1/tickets/tkt_1/nonsense', { headers: auth }), 404, 'NOT_FOUND');
  });

  it('answers a known path with the wrong method with 405 METHOD_NOT_ALLOWED and Allow', async () => {
    const organization = await raw('DELETE', '/api/v1/organization', { headers: auth });
    expectEnvelope(organization, 405, 'METHOD_NOT_ALLOWED');
    expect(organization.headers.allow).toBe('GET, PATCH');
    const board = await raw('PUT', '/api/v1/boards/brd_anything');
    expectEnvelope(board, 405, 'METHOD_NOT_ALLOWED');
    expect(board.headers.allow).toBe('DELETE, GET, PATCH');
    expect(board.body.error.details.allowed).toEqual(['DELETE', 'GET', 'PATCH']);
  });

  it('answers an oversize body with 413 PAYLOAD_TOO_LARGE at any size, on any route, and stores nothing', async () => {
    const twoMegabytes = Buffer.from(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
    expectEnvelope(await raw('POST', '/api/v1/boards', { headers: auth, body: twoMegabytes }), 413, 'PAYLOAD_TOO_LARGE');
    // A route that reads no body refuses it too.
    expectEnvelope(await raw('GET', '/api/v1/boards', { headers: auth, body: twoMegabytes }), 413, 'PAYLOAD_TOO_LARGE');
    // Beyond what API Gateway accepts (10 MB).
    const elevenMegabytes = Buffer.alloc(11 * 1024 * 1024, 0x61);
    expectEnvelope(await raw('POST', '/api/v1/boards', { headers: auth, body: elevenMegabytes }), 413, 'PAYLOAD_TOO_LARGE');
    expect((await org.call('GET', '/api/v1/boards')).body.total).toBe(0);
  });

  it('answers oversize headers with 431 HEADERS_TOO_LARGE', async () => {
    const response = await raw('GET', '/api/v1/boards', { headers: { ...auth, 'x-padding': 'p'.repeat(20 * 1024) } });
    expectEnvelope(response, 431, 'HEADERS_TOO_LARGE');
  });

  it('answers malformed percent-encoding in a path with 400, never 500', async () => {
    expectEnvelope(await raw('GET', '/api/v1/boards/%E0%A4%A', { headers: auth }), 400, 'VALIDATION_ERROR');
    expectEnvelope(await raw('GET', '/api/v1/%ZZ/unknown', { headers: auth }), 400, 'VALIDATION_ERROR');
    expectEnvelope(await raw('GET', '/api/v1/boards/%FF', { headers: auth }), 400, 'VALIDATION_ERROR');
  });

  it('answers a body that is not valid UTF-8 with 400 and stores no replacement characters', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"Bad '), Buffer.from([0xff, 0xfe]), Buffer.from(' bytes"}')]);
    const response = await raw('POST', '/api/v1/boards', { headers: auth, body });
    expectEnvelope(response, 400, 'VALIDATION_ERROR');
    expect(response.body.error.details.issues).toEqual([{ path: 'body', message: 'Not valid UTF-8' }]);
    expect((await org.call('GET', '/api/v1/boards')).body.total).toBe(0);
    // Valid UTF-8 beyond ASCII is of course accepted.
    const fine = await raw('POST', '/api/v1/boards', { headers: auth, body: Buffer.from(JSON.stringify({ name: 'Überraschung ✓' })) });
    expect(fine.status).toBe(201);
    expect(fine.body.name).toBe('Überraschung ✓');
  });

  it('keeps malformed JSON a 400 with the envelope', async () => {
    expectEnvelope(await raw('POST', '/api/v1/boards', { headers: auth, body: Buffer.from('{"name":') }), 400, 'VALIDATION_ERROR');
  });
});
