import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildSync } from 'esbuild';
import * as path from 'node:path';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { setPlan, signupOrg, type TestOrg } from '../support/api.js';
import { launchChromium, seriousAxeViolations } from '../support/browser.js';
import { oauthFetch } from '../support/oauth.js';
import { createAgent, createBoard, createTicket, type TestAgent } from '../support/factories.js';

/*
 * The inbox's MCP Apps view (docs/console.md, "The inbox inside AI clients") rendered in headless
 * Chromium inside a sandboxed frame by a minimal host built on the extension's AppBridge
 * (test/browser/mcp-app-host.ts), with the official MCP client carrying its tool calls to the
 * server: what a person sees in Claude or VS Code, and what their click does.
 */
let browser: Browser;
let org: TestOrg;
let boardId: string;
let agent: TestAgent;
let statuses: Record<string, { id: string }>;
let client: Client;

const HOST_SCRIPT = buildSync({ entryPoints: [path.resolve('test/browser/mcp-app-host.ts')], bundle: true, format: 'iife', write: false, platform: 'browser', target: 'es2022' }).outputFiles[0]!.text;

beforeAll(async () => {
  org = await signupOrg();
  await setPlan(org.slug, 'PRO');
  boardId = (await createBoard(org, { name: 'View board', prefix: 'VIEW' })).id;
  expect((await org.call('PATCH', `/api/v1/boards/${boardId}`, { body: { features: { explainableStatus: true } } })).status).toBe(200);
  statuses = Object.fromEntries((await org.call('GET', '/api/v1/statuses')).body.data.map((status: { key: string }) => [status.key, status]));
  agent = await createAgent(org, { agent: { name: 'View Bot', ownerId: org.adminId }, boardIds: [boardId] });
  client = new Client({ name: 'Test host', version: '1.0.0' });
  const url = new URL(`http://${org.slug}.localhost:${new URL(inject('baseUrl')).port}/api/v1/mcp`);
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: oauthFetch() as never, requestInit: { headers: { authorization: `Bearer ${org.adminToken}` } } }));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await client?.close();
  await browser?.close();
});

async function openInbox(page: Page): Promise<Frame> {
  const view = await client.readResource({ uri: 'ui://work-management/inbox.html' });
  const html = (view.contents[0] as { text: string }).text;
  await page.exposeFunction('hostCallTool', (params: { name: string; arguments?: Record<string, unknown> }) => client.callTool(params));
  await page.setContent('<!doctype html><html lang="en"><head><title>Test host</title></head><body><main><h1>Test host</h1></main></body></html>');
  await page.addScriptTag({ content: HOST_SCRIPT });
  await page.evaluate(`window.openView(${JSON.stringify(html)}, 'inbox_show')`);
  const handle = await page.waitForSelector('iframe');
  return (await handle!.contentFrame())!;
}

describe('the inbox view in an MCP Apps host', () => {
  it('shows an agent’s suggested move, and Approve moves the ticket', async () => {
    const ticket = await createTicket(org, boardId, { title: 'Approve me in the view', statusId: statuses.IN_PROGRESS!.id });
    const refused = await agent.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}/status`, { statusId: statuses.DONE!.id, reason: 'Green build' });
    expect(refused.status).toBe(403);
    const page = await browser.newPage();
    try {
      const frame = await openInbox(page);
      await frame.waitForFunction(`document.body.innerText.includes(${JSON.stringify(`${ticket.displayId} Approve me in the view`)})`, { timeout: 15_000 });
      expect(await frame.evaluate('document.body.innerText')).toContain('Green build');
      expect(await seriousAxeViolations(frame as unknown as Page)).toEqual([]);
      await frame.locator(`::-p-aria([name="Approve ${ticket.displayId}"][role="button"])`).click();
      await frame.waitForFunction(`document.body.innerText.includes(${JSON.stringify(`${ticket.displayId} moved to Done.`)})`, { timeout: 15_000 });
      const moved = await org.call('GET', `/api/v1/boards/${boardId}/tickets/${ticket.id}`);
      expect(moved.body.data.status.id).toBe(statuses.DONE!.id);
      // The view shows the inbox again: the decided move is gone from it.
      await frame.waitForFunction(`!document.body.innerText.includes(${JSON.stringify('Approve me in the view')})`, { timeout: 15_000 });
      await page.screenshot({ path: path.resolve('test-artifacts', 'console', 'mcp-app-inbox.png') });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('renders hostile text inert, and a refusal as the server worded it', async () => {
    const hostile = '<img src=x onerror="window.__pwned=1">';
    const ticket = await createTicket(org, boardId, { title: `Hostile ${hostile}`, statusId: statuses.IN_PROGRESS!.id });
    const refused = await agent.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}/status`, { statusId: statuses.DONE!.id, reason: hostile });
    const suggestionId = refused.body.error.details.suggestionId as string;
    const page = await browser.newPage();
    try {
      const frame = await openInbox(page);
      await frame.waitForFunction(`document.body.innerText.includes(${JSON.stringify(`Hostile ${hostile}`)})`, { timeout: 15_000 });
      expect(await frame.evaluate("[window.__pwned === undefined, document.querySelectorAll('img').length]")).toEqual([true, 0]);
      // Someone else decides it first: the view's Reject is refused, and says why.
      expect((await org.call('POST', `/api/v1/boards/${boardId}/tickets/${ticket.id}/suggestions/${suggestionId}/reject`, { body: {} })).status).toBe(200);
      await frame.locator(`::-p-aria([name="Reject ${ticket.displayId}"][role="button"])`).click();
      await frame.waitForFunction(`/already|not pending|REJECTED/i.test(document.getElementById('status').innerText)`, { timeout: 15_000 });
    } finally {
      await page.close();
    }
  }, 60_000);
});
