import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectValidationError, useInProcess } from '../support/api.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { createTicket } from '../support/factories.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * What a route reads of a request body, found by an outside probe: a body is read by its
 * declared media type (JSON routes refuse any other with 415, the OAuth forms keep their form
 * encoding), and text that is not valid Unicode (an unpaired UTF-16 surrogate, which JSON can
 * carry) is refused wherever it is, naming the field. Each refusal changes nothing.
 */
let setup: BoardSetup;

beforeAll(async () => {
  setup = await boardSetup('Bodies');
}, 60_000);

const board = () => setup.org.call('GET', `/api/v1/boards/${setup.boardId}`);
const patchBoard = (rawBody: string, contentType?: string) =>
  setup.org.call('PATCH', `/api/v1/boards/${setup.boardId}`, { rawBody, headers: contentType === undefined ? {} : { 'content-type': contentType } });

describe('request media types', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['text/plain with a charset', 'text/plain; charset=utf-8'],
    ['form encoding on a JSON route', 'application/x-www-form-urlencoded'],
    ['no Content-Type at all', undefined],
  ])('refuses a JSON body sent as %s with 415 and renames nothing', async (_name, contentType) => {
    const before = (await board()).body.name;
    const response = await patchBoard(JSON.stringify({ name: 'Renamed by text' }), contentType);
    expect(response.status).toBe(415);
    expect(response.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(response.body.error.details.accepted).toEqual(['application/json']);
    expect((await board()).body.name).toBe(before);
  });

  it.each([
    ['application/json', 'application/json'],
    ['application/json with a charset', 'application/json; charset=UTF-8'],
    ['a +json type', 'application/merge-patch+json'],
    ['upper case', 'Application/JSON'],
  ])('reads a body sent as %s', async (name, contentType) => {
    const response = await patchBoard(JSON.stringify({ name: `Named by ${name}` }), contentType);
    expect(response.status).toBe(200);
    expect((await board()).body.name).toBe(`Named by ${name}`);
  });

  it('reads a body-less POST whatever its Content-Type', async () => {
    const ticket = await createTicket(setup.org, setup.boardId, { title: 'Approve me' });
    const approved = await setup.org.call('POST', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/approve`, { headers: { 'content-type': 'text/plain' } });
    expect(approved.status).toBe(200);
  });

  it('keeps the form encoding of the OAuth token endpoint, and refuses text/plain there with invalid_request', async () => {
    const form = await api('POST', '/api/v1/oauth/token', { org: setup.org.slug, rawBody: 'grant_type=password', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(400);
    expect(form.body.error).toBe('unsupported_grant_type');
    const text = await api('POST', '/api/v1/oauth/token', { org: setup.org.slug, rawBody: 'grant_type=password', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.error).toBe('invalid_request');
  });
});

describe('text that is not valid Unicode', () => {
  it('refuses an unpaired surrogate in a ticket title, naming the field, and stores nothing', async () => {
    const before = (await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets`)).body.total;
    const response = await setup.org.call('POST', `/api/v1/boards/${setup.boardId}/tickets`, { rawBody: '{"title":"broken \\ud800 title"}', headers: { 'content-type': 'application/json' } });
    expectValidationError(response, 'title');
    expect((await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets`)).body.total).toBe(before);
  });

  it.each([
    ['a lone high surrogate', '\\ud83d'],
    ['a lone low surrogate', '\\ude00'],
    ['two high surrogates', '\\ud83d\\ud83d'],
  ])('refuses %s in a board name and renames nothing', async (_name, escaped) => {
    const before = (await board()).body.name;
    const response = await patchBoard(`{"name":"Board ${escaped}"}`, 'application/json');
    expectValidationError(response, 'name');
    expect((await board()).body.name).toBe(before);
  });

  it('names a nested field, and accepts a well-formed pair (an emoji)', async () => {
    const nested = await setup.org.call('POST', '/api/v1/labels', { rawBody: '{"name":"ok","color":"#112233","extra":{"list":["fine","\\udfff"]}}', headers: { 'content-type': 'application/json' } });
    expectValidationError(nested, 'extra.list.1');
    const emoji = await patchBoard('{"name":"Rocket \\ud83d\\ude80"}', 'application/json');
    expect(emoji.status).toBe(200);
    expect((await board()).body.name).toBe('Rocket 🚀');
  });
});
