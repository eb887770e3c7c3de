import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/** Debian's Chromium (.ci/run installs the `chromium` package); CHROMIUM_PATH overrides. */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/*
 * The docs page as a person sees it: headless Chromium opens /docs, the renderer (served by
 * the service, no network beyond it) draws the reference from /api/v1/openapi.json, and the
 * page lists the routes, the claim route among them.
 */
describe('the /docs page in a browser', () => {
  let browser: Browser;
  const dir = mkdtempSync(path.join(tmpdir(), 'docs-page-'));

  beforeAll(async () => {
    if (!existsSync(chromiumPath)) throw new Error(`Chromium not found at ${chromiumPath} (install the Debian package chromium, or set CHROMIUM_PATH)`);
    browser = await puppeteer.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders every group and lists the claim route, and a screenshot shows it', async () => {
    const page = await browser.newPage();
    // As if offline: anything but this service is refused, and the page must render regardless.
    const local = (url: string) => url.startsWith(inject('baseUrl')) || url.startsWith('data:') || url.startsWith('blob:');
    // Every request to another host is recorded, asked for or refused by the page's policy alike.
    const loadedFromOutside: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (local(request.url())) return void request.continue();
      loadedFromOutside.push(request.url());
      void request.abort();
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to load/i.test(message.text())) loadedFromOutside.push(message.text());
    });
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(`${inject('baseUrl')}/docs`, { waitUntil: 'networkidle0', timeout: 60_000 });
    // Page-side code as strings: this project's TypeScript has no DOM types.
    await page.waitForFunction("document.body.innerText.includes('/api/v1/boards/{boardId}/tickets/{ticketId}/claim')", { timeout: 60_000 });
    const text = (await page.evaluate('document.body.innerText')) as string;
    for (const tag of ['tickets', 'boards', 'agents', 'docs']) expect(text).toContain(tag);
    expect(text).toContain('Claim a ticket (exclusive, expiring lease)');
    expect(text).toContain('Work-management API');
    const screenshot = path.join(dir, 'docs.png');
    await page.screenshot({ path: screenshot, fullPage: false });
    expect(statSync(screenshot).size).toBeGreaterThan(20_000);
    expect(loadedFromOutside).toEqual([]);
    await page.close();
  }, 90_000);
});
