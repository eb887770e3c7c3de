/**
 * `npm run bench:console`: a board of 5,000 tickets in the console (docs/console.md), in headless
 * Chromium against the local runtime. The tickets are written with `POST …/tickets` over HTTP
 * (16 writers), as an API client writes them, over four ACTIVE statuses. Then, signed in, the
 * board page is opened again and again: the time from navigation until every column shows its
 * first page of cards (100, or the column's total), and the time of `Show more` in the longest
 * column until its next 100 show. Also the first load's JavaScript (gzipped). Prints a table for
 * docs/performance.md; asserts nothing.
 */
import { gzipSync } from 'node:zlib';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { launchChromium } from '../support/browser.js';
import { ok, percentile, send } from './http.js';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 5000);
const WRITERS = 16;
const RUNS = 10;

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ port: 0, logRequests: false, credentialRateLimit: 0, sweeperIntervalSeconds: 3600 });
  const browser = await launchChromium();
  try {
    const base = runtime.baseUrl;
    const slug = `bench-${Date.now().toString(36)}`;
    const email = `ada@${slug}.test`;
    const password = 'correct horse battery';
    const signup = await ok(send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'Bench', slug, name: 'Ada', email, password }), 'signup');
    const headers = { authorization: `Bearer ${signup.token}`, 'x-organization': slug };
    const board = await ok(send(base, 'POST', '/api/v1/boards', headers, { name: 'Five thousand', prefix: 'BIG' }), 'board');
    const statuses = (await ok(send(base, 'GET', '/api/v1/statuses', headers), 'statuses')).data as { id: string; category: string; key: string }[];
    const active = statuses.filter((status) => status.category === 'ACTIVE').map((status) => status.id);

    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (next < TICKETS) {
          const index = next++;
          await ok(send(base, 'POST', `/api/v1/boards/${board.id}/tickets`, headers, { title: `Ticket ${index}: fix the ${['login', 'export', 'search'][index % 3]} flow`, statusId: active[index % active.length] }), 'create');
        }
      }),
    );
    console.log(`Created ${TICKETS} tickets through POST …/tickets with ${WRITERS} writers in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const page = await browser.newPage();
    await page.setViewport({ width: 1440, height: 900 });
    const boardUrl = `${base}/app/boards/${board.id}?org=${slug}`;
    await page.goto(boardUrl, { waitUntil: 'load' });
    await page.waitForSelector('#email');
    await page.type('#email', email);
    await page.type('#password', password);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    await page.waitForSelector('li[data-ticket-id]');

    // Every column shows its first page: 100 cards, or all of a shorter column.
    const firstPagesShown = `(() => {
      const columns = [...document.querySelectorAll('section[data-status-id]')];
      return columns.length > 0 && columns.every((column) => {
        const total = Number(column.querySelector('h2 .muted')?.textContent ?? 'NaN');
        return Number.isFinite(total) && column.querySelectorAll('li[data-ticket-id]').length === Math.min(100, total);
      });
    })()`;
    const opens: number[] = [];
    const more: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const began = Date.now();
      await page.goto(boardUrl, { waitUntil: 'domcontentloaded' });
      await page.waitForFunction(firstPagesShown, { timeout: 60_000, polling: 'raf' });
      opens.push(Date.now() - began);
      const button = await page.$('button.more');
      if (button) {
        const shown = await page.$$eval('li[data-ticket-id]', (cards) => cards.length);
        const clicked = Date.now();
        await button.click();
        await page.waitForFunction(`document.querySelectorAll('li[data-ticket-id]').length >= ${shown + 100}`, { timeout: 60_000, polling: 'raf' });
        more.push(Date.now() - clicked);
      }
    }
    const cards = await page.$$eval('li[data-ticket-id]', (list) => list.length);
    const html = await (await fetch(`${base}/app?org=${slug}`)).text();
    let firstLoad = 0;
    for (const [, script] of html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+\.js)"/g)) {
      firstLoad += gzipSync(Buffer.from(await (await fetch(`${base}${script}`)).arrayBuffer())).byteLength;
    }
    console.log(`\nA board of ${TICKETS} tickets over ${active.length} statuses (${RUNS} runs; ${cards} cards on the page after the last Show more)\n`);
    console.log('| case | p50 ms | p90 ms | max ms |\n|---|---|---|---|');
    const row = (label: string, values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      console.log(`| ${label} | ${percentile(sorted, 50).toFixed(0)} | ${percentile(sorted, 90).toFixed(0)} | ${sorted.at(-1)!.toFixed(0)} |`);
    };
    row('open the board: every column shows its first 100 cards', opens);
    if (more.length) row('Show more: the next 100 cards of a column', more);
    console.log(`\nFirst load's JavaScript: ${(firstLoad / 1024).toFixed(1)} KB gzipped`);
  } finally {
    await browser.close();
    await runtime.stop();
  }
}

await main();
