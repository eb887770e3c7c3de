import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createMember, mailedToken, setPlan, signupOrg, type TestOrg } from '../support/api.js';
import { lapseClaim } from '../support/tickets.js';
import { launchChromium, seriousAxeViolations } from '../support/browser.js';
import { createAgent, createBoard, createTicket, type TestAgent } from '../support/factories.js';
import { runSweep } from '../../lib/sweeper/index.js';
import { systemClock } from '../../lib/core/clock.js';

/*
 * The console (docs/console.md) as a person uses it, in headless Chromium against the shared
 * runtime: sign in on the service's own page, approve an agent's move from the inbox, watch the
 * fleet, every page checked by axe-core, and sign out at the server. Screenshots of each page at
 * a phone's and a desktop's width go to test-artifacts/console.
 */
const PASSWORD = 'correct horse battery';
const SCREENSHOTS = path.resolve('test-artifacts', 'console');

let browser: Browser;
let org: TestOrg;
let boardId: string;
let statuses: Record<string, { id: string; name: string }>;
let agent: TestAgent;

const consoleUrl = (page = '') => `${inject('baseUrl')}/app${page}?org=${org.slug}`;
const button = (name: string) => `::-p-aria([name="${name}"][role="button"])`;
const link = (name: string) => `::-p-aria([name="${name}"][role="link"])`;
const textOf = (page: Page): Promise<string> => page.evaluate('document.body.innerText') as Promise<string>;
async function waitForText(page: Page, text: string, timeout = 15_000): Promise<void> {
  try {
    await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(text)})`, { timeout });
  } catch (error) {
    throw new Error(`"${text}" did not appear; the page reads:\n${await textOf(page)}`, { cause: error });
  }
}

/**
 * A moment for a page's first answers to render before axe reads it: network quiet for 300 ms, or
 * 2 s at most (polling never stops, and a request cut short by a navigation can keep puppeteer's
 * count of requests in flight from reaching zero).
 */
const settle = (page: Page): Promise<void> => page.waitForNetworkIdle({ idleTime: 300, timeout: 2_000 }).catch(() => undefined);

/** Waits until the page shows exactly `count` cards; on a timeout the error carries the page's text. */
async function waitForCards(page: Page, count: number | 'more than 2'): Promise<void> {
  const test = count === 'more than 2' ? '> 2' : `=== ${count}`;
  try {
    await page.waitForFunction(`document.querySelectorAll('li[data-ticket-id]').length ${test}`, { timeout: 15_000 });
  } catch (error) {
    throw new Error(`not ${count} cards; the page reads:\n${await textOf(page)}`, { cause: error });
  }
}

async function signIn(page: Page, email = `admin@${org.slug}.test`): Promise<void> {
  await page.waitForSelector('#email');
  expect(page.url()).toContain('/api/v1/oauth/authorize');
  expect(await page.$eval('label[for=email]', (label) => label.textContent)).toBe('Email');
  expect(await page.$eval('label[for=password]', (label) => label.textContent)).toBe('Password');
  await page.type('#email', email);
  await page.type('#password', PASSWORD);
  await Promise.all([page.waitForNavigation(), page.locator(button('Sign in')).click()]);
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
  org = await signupOrg();
  await setPlan(org.slug, 'PRO');
  boardId = (await createBoard(org, { name: 'Console board', prefix: 'CON' })).id;
  expect((await org.call('PATCH', `/api/v1/boards/${boardId}`, { body: { features: { explainableStatus: true } } })).status).toBe(200);
  statuses = Object.fromEntries((await org.call('GET', '/api/v1/statuses')).body.data.map((status: { key: string }) => [status.key, status]));
  agent = await createAgent(org, { agent: { name: 'Builder Bot', ownerId: org.adminId }, boardIds: [boardId] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('the console in a browser', () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await browser.createBrowserContext();
    page = await context.newPage();
    await page.setViewport({ width: 1440, height: 900 });
  });
  afterAll(async () => context?.close());

  it('signs in on the service’s sign-in page, lands on the inbox, and keeps no credential where a script can read it', async () => {
    await page.goto(consoleUrl(), { waitUntil: 'load' });
    await signIn(page);
    await page.waitForSelector('::-p-aria([name="Inbox"][role="heading"])');
    expect(new URL(page.url()).pathname).toBe('/app');
    expect(new URL(page.url()).searchParams.get('code')).toBeNull();
    for (const name of ['Inbox', 'Fleet', 'Boards', 'Agents', 'People']) expect(await page.$(link(name))).not.toBeNull();
    expect(await page.$(button('Sign out'))).not.toBeNull();
    expect(await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]')).toEqual([0, 0, '']);
  });

  it('approves an agent’s suggested move from the inbox, and the ticket moves', async () => {
    const ticket = await createTicket(org, boardId, { title: 'Ship the release notes', statusId: statuses.IN_PROGRESS!.id });
    const refused = await agent.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}/status`, { statusId: statuses.DONE!.id, reason: 'Notes are published' });
    expect(refused.status).toBe(403);
    await waitForText(page, `${ticket.displayId} Ship the release notes`);
    expect(await textOf(page)).toContain('Notes are published');
    await page.locator(`::-p-xpath(//li[contains(., "${ticket.displayId} Ship the release notes")]//button[normalize-space()="Approve"])`).click();
    await page.waitForFunction(`!document.body.innerText.includes(${JSON.stringify(`${ticket.displayId} Ship the release notes`)})`, { timeout: 15_000 });
    const moved = await org.call('GET', `/api/v1/boards/${boardId}/tickets/${ticket.id}`);
    expect(moved.body.data.status.id).toBe(statuses.DONE!.id);
  });

  it('approves an agent’s time from the inbox', async () => {
    const ticket = await createTicket(org, boardId, { title: 'Write the changelog' });
    const booked = await agent.call('POST', '/api/v1/time-tracking/entries', { ticketId: ticket.id, durationMinutes: 30, description: 'Drafted it' });
    expect(booked.status).toBe(201);
    expect(booked.body.state).toBe('PENDING');
    await waitForText(page, `${ticket.displayId} Write the changelog`);
    await page.locator(`::-p-xpath(//li[contains(., "${ticket.displayId} Write the changelog")]//button[normalize-space()="Approve"])`).click();
    await page.waitForFunction(`!document.body.innerText.includes(${JSON.stringify(`${ticket.displayId} Write the changelog`)})`, { timeout: 15_000 });
    const entries = await org.call('GET', `/api/v1/boards/${boardId}/tickets/${ticket.id}/time-entries`);
    expect(entries.body.data.map((entry: { state: string }) => entry.state)).toEqual(['APPROVED']);
  });

  it('renders hostile titles and descriptions as text: no markup, no handler runs', async () => {
    const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const ticket = await createTicket(org, boardId, { title: `Hostile ${hostile}`, description: `[link](javascript:window.__pwned=3) ${hostile}`, assigneeId: org.adminId });
    await page.locator(link('Inbox')).click();
    await waitForText(page, `${ticket.displayId} Hostile <img src=x`);
    await page.locator(`::-p-xpath(//li[contains(., "${ticket.displayId} Hostile")]//button[contains(., "${ticket.displayId}")])`).click();
    await waitForText(page, '[link](javascript:');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.evaluate("document.querySelectorAll('main img, main script, main a[href^=\"javascript:\"]').length")).toBe(0);
    // The ticket page renders the description as Markdown: the same text stays inert there.
    await page.locator(link(`Open ${ticket.displayId}`)).click();
    await page.waitForSelector('::-p-aria([name="Timeline"][role="heading"])');
    await waitForText(page, '<script>window.__pwned=2</script>');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.evaluate("document.querySelectorAll('main img, main script, main a[href^=\"javascript:\"]').length")).toBe(0);
    await page.locator(link('Inbox')).click();
  });

  it('creates an agent, mints a token with restrictions (its secret shown once, with Copy) that works, and revokes it', async () => {
    await page.locator(link('Agents')).click();
    await page.waitForSelector('::-p-aria([name="Agents"][role="heading"])');
    await page.locator('::-p-aria([name="Name"][role="textbox"])').fill('Release Bot');
    await Promise.all([page.waitForFunction("location.pathname.startsWith('/app/agents/agt_') || location.pathname.startsWith('/app/agents/usr_')"), page.locator(button('Create agent')).click()]);
    await page.waitForSelector('::-p-aria([name="Release Bot"][role="heading"])');
    const agentId = new URL(page.url()).pathname.split('/').pop()!;
    await page.locator('::-p-aria([name="Token name"][role="textbox"])').fill('ci');
    await page.locator('::-p-aria([name="Read only"][role="checkbox"])').click();
    await page.locator(button('Mint token')).click();
    const secret = (await (await page.waitForSelector('.secret code'))!.evaluate((code) => code.textContent)) as string;
    expect(await page.$(button('Copy'))).not.toBeNull();
    const listed = await org.call('GET', `/api/v1/organizations/${org.orgId}/agents/${agentId}/tokens`);
    expect(listed.body.tokens).toMatchObject([{ name: 'ci', readOnly: true }]);
    expect((await api('GET', '/api/v1/boards', { token: secret, org: org.slug })).status).toBe(200);
    expect((await api('POST', '/api/v1/boards', { token: secret, org: org.slug, body: { name: 'No', prefix: 'NO' } })).status).toBe(403);
    await page.locator(button('Done')).click();
    expect(await page.$('.secret')).toBeNull();
    await page.locator('::-p-aria([name="Revoke ci"][role="button"])').click();
    await waitForText(page, 'No tokens.');
    expect((await api('GET', '/api/v1/boards', { token: secret, org: org.slug })).status).toBe(401);
  });

  it('sets an agent’s limits and deactivates it, and changes the organization’s agent policies', async () => {
    const created = await createAgent(org, { agent: { name: 'Limited Bot', ownerId: org.adminId }, boardIds: [boardId] });
    await page.goto(consoleUrl(`/agents/${created.id}`), { waitUntil: 'load' });
    await page.waitForSelector('::-p-aria([name="Limits and time"][role="heading"])');
    await page.locator('::-p-aria([name="Claims at once"][role="spinbutton"])').fill('2');
    await page.locator('::-p-aria([name="Weekly hours cap"][role="spinbutton"])').fill('20');
    await page.locator(button('Save settings')).click();
    await waitForText(page, 'Saved.');
    const agentPath = `/api/v1/organizations/${org.orgId}/agents/${created.id}`;
    expect((await org.call('GET', agentPath)).body).toMatchObject({ maxConcurrentClaims: 2, weeklyHoursCap: 20, timeFactor: null, isActive: true });
    await page.locator(button('Deactivate agent')).click();
    await page.waitForSelector(button('Activate agent'));
    expect((await org.call('GET', agentPath)).body.isActive).toBe(false);

    await page.locator(link('Agents')).click();
    await page.waitForSelector('::-p-aria([name="Agent policies"][role="heading"])');
    const policiesPath = `/api/v1/organizations/${org.orgId}/agents/policies`;
    const before = (await org.call('GET', policiesPath)).body;
    await page.locator('::-p-aria([name="Agents\' pull requests need a person\'s review"][role="checkbox"])').click();
    await page.locator(button('Save policies')).click();
    await waitForText(page, 'Saved.');
    const after = (await org.call('GET', policiesPath)).body;
    expect(after).toMatchObject({ prsRequireHumanReview: !before.prsRequireHumanReview, statusTransitionsRequireApproval: before.statusTransitionsRequireApproval });
    // Put the policy back for the tests after this one.
    expect((await org.call('PATCH', policiesPath, { body: { prsRequireHumanReview: before.prsRequireHumanReview } })).status).toBe(200);
  });

  it('moves a card to another column by drag and drop, and with the keyboard alone', async () => {
    const dragged = await createTicket(org, boardId, { title: 'Drag me', statusId: statuses.TODO!.id });
    const keyed = await createTicket(org, boardId, { title: 'Key me', statusId: statuses.TODO!.id });
    await page.locator(link('Boards')).click();
    await page.locator(link('Console board')).click();
    const column = (statusId: string) => `section[data-status-id="${statusId}"]`;
    await page.waitForSelector(`${column(statuses.TODO!.id)} li[data-ticket-id="${dragged.id}"]`);
    const statusOf = async (ticketId: string) => (await org.call('GET', `/api/v1/boards/${boardId}/tickets/${ticketId}`)).body.data.status.id;

    const card = (await page.$(`li[data-ticket-id="${dragged.id}"]`))!;
    await (await page.$(column(statuses.IN_PROGRESS!.id)))!.drop(card);
    await page.waitForSelector(`${column(statuses.IN_PROGRESS!.id)} li[data-ticket-id="${dragged.id}"]`, { timeout: 15_000 });
    expect(await statusOf(dragged.id)).toBe(statuses.IN_PROGRESS!.id);

    await page.focus(`li[data-ticket-id="${keyed.id}"] button`);
    await page.keyboard.press('Enter');
    const [columnSelect, placeSelect] = await page.$$(`li[data-ticket-id="${keyed.id}"] select`);
    await columnSelect!.select(statuses.IN_PROGRESS!.id);
    await placeSelect!.select('top');
    await page.locator(`li[data-ticket-id="${keyed.id}"] ::-p-aria([name="Move here"][role="button"])`).click();
    await page.waitForSelector(`${column(statuses.IN_PROGRESS!.id)} li:first-child[data-ticket-id="${keyed.id}"]`, { timeout: 15_000 });
    expect(await statusOf(keyed.id)).toBe(statuses.IN_PROGRESS!.id);
  });

  it('shows an agent’s claim on the fleet page without a reload, with its liveness in words', async () => {
    await page.locator(link('Fleet')).click();
    await page.waitForSelector('::-p-aria([name="Fleet"][role="heading"])');
    const ticket = await createTicket(org, boardId, { title: 'Index the wiki' });
    expect((await agent.call('POST', `/api/v1/boards/${boardId}/tickets/${ticket.id}/claim`, {})).status).toBe(201);
    await waitForText(page, `${ticket.displayId} Index the wiki`);
    // The last heartbeat's note says what the agent is doing.
    expect((await agent.call('POST', `/api/v1/boards/${boardId}/tickets/${ticket.id}/claim/heartbeat`, { note: 'Indexing page 40 of 120' })).status).toBe(200);
    await waitForText(page, 'Indexing page 40 of 120');
    const text = await textOf(page);
    expect(text).toMatch(/live, seen \d+ s ago/);
    expect(text).toMatch(/\d+ min \d+ s left/);
  });

  it('shows an agent’s claim on the board without a reload, then its lapse', async () => {
    const ticket = await createTicket(org, boardId, { title: 'Watch my lease', statusId: statuses.IN_PROGRESS!.id });
    await page.locator(link('Boards')).click();
    await page.locator(link('Console board')).click();
    const card = `li[data-ticket-id="${ticket.id}"]`;
    await page.waitForSelector(card);
    expect((await agent.call('POST', `/api/v1/boards/${boardId}/tickets/${ticket.id}/claim`, {})).status).toBe(201);
    await page.waitForFunction(`document.querySelector(${JSON.stringify(card)})?.innerText.includes('Builder Bot')`, { timeout: 15_000 });
    expect(await page.$eval(card, (element) => element.textContent)).toMatch(/Builder Bot, \d+ min \d+ s left/);
    await lapseClaim(ticket.id);
    await page.waitForFunction(`!document.querySelector(${JSON.stringify(card)})?.innerText.includes('Builder Bot')`, { timeout: 15_000 });
  });

  it('marks ready and blocked cards, filters the board by search and by ready work, and opens a column a page at a time', async () => {
    const tag = `qz${Date.now().toString(36)}`;
    const blocker = await createTicket(org, boardId, { title: `${tag} blocker`, statusId: statuses.IN_PROGRESS!.id });
    const blocked = await createTicket(org, boardId, { title: `${tag} blocked`, statusId: statuses.IN_PROGRESS!.id });
    expect((await org.call('PUT', `/api/v1/boards/${boardId}/tickets/${blocked.id}/dependencies/${blocker.id}`)).status).toBeLessThan(300);
    await page.locator(link('Boards')).click();
    await page.locator(link('Console board')).click();
    const card = (ticketId: string) => `li[data-ticket-id="${ticketId}"]`;
    await page.waitForSelector(card(blocked.id));
    await page.waitForFunction(`document.querySelector(${JSON.stringify(card(blocked.id))}).innerText.includes('Blocked by 1')`, { timeout: 15_000 });
    expect(await page.$eval(card(blocker.id), (element) => element.textContent)).toContain('Ready');

    await page.locator('::-p-aria([name="Search"][role="searchbox"])').fill(tag);
    await waitForCards(page, 2);
    await page.locator('::-p-aria([name="Ready only"][role="checkbox"])').click();
    await waitForCards(page, 1);
    expect(await page.$(card(blocker.id))).not.toBeNull();
    await page.locator(button('Clear filters')).click();
    await waitForCards(page, 'more than 2');

    // A column longer than a page: the first 100 cards, then the rest on asking.
    const many = await createBoard(org, { name: 'Long board', prefix: 'LONG' });
    await Promise.all(Array.from({ length: 105 }, (_, index) => createTicket(org, many.id, { title: `Long ${index}`, statusId: statuses.BACKLOG!.id })));
    await page.goto(consoleUrl(`/boards/${many.id}`), { waitUntil: 'load' });
    await waitForCards(page, 100);
    await page.locator(button('Show more in Backlog')).click();
    await waitForCards(page, 105);
    expect(await page.$(button('Show more in Backlog'))).toBeNull();
  }, 120_000);

  it('edits a ticket in place and resolves a conflicting edit: keep mine, or take theirs', async () => {
    const ticket = await createTicket(org, boardId, { title: 'Edit me in place', description: '## Steps\n\n1. **Bold** step' });
    await page.goto(consoleUrl(`/boards/${boardId}/tickets/${ticket.id}`), { waitUntil: 'load' });
    await page.waitForSelector('::-p-aria([name="Claim"][role="heading"])');
    expect(await page.$eval('.markdown strong', (element) => element.textContent)).toBe('Bold');
    const current = async () => (await org.call('GET', `/api/v1/boards/${boardId}/tickets/${ticket.id}`)).body.data;

    // A plain edit.
    await page.locator(button('Edit priority')).click();
    await page.select('form.edit select', 'high');
    await page.locator(button('Save')).click();
    await page.waitForSelector('::-p-aria([name="Edit priority"][role="button"])');
    expect((await current()).priority).toBe('high');

    // Someone else changes the title while the person edits it: the person keeps theirs.
    await page.locator(button('Edit title')).click();
    await page.locator('form.edit input').fill('My title');
    expect((await org.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}`, { body: { title: 'Their title' } })).status).toBe(200);
    await page.locator(button('Save')).click();
    await waitForText(page, 'Title was changed by someone else');
    expect(await textOf(page)).toContain('Theirs: Their title');
    await page.locator(button('Keep mine')).click();
    await page.waitForSelector('::-p-aria([name="Edit title"][role="button"])');
    expect((await current()).title).toBe('My title');

    // Again, and this time the person takes the other change.
    await page.locator(button('Edit priority')).click();
    await page.select('form.edit select', 'low');
    expect((await org.call('PATCH', `/api/v1/boards/${boardId}/tickets/${ticket.id}`, { body: { priority: 'critical' } })).status).toBe(200);
    await page.locator(button('Save')).click();
    await waitForText(page, 'Priority was changed by someone else');
    await page.locator(button('Take theirs')).click();
    await page.waitForSelector('::-p-aria([name="Edit priority"][role="button"])');
    expect((await current()).priority).toBe('critical');
    expect(await page.$eval('dl.ticket-fields', (element) => element.textContent)).toContain('critical');
  });

  it('adds a blocker, a comment thread and a secret comment on the ticket page; a hostile comment is inert; a customer sees no secret comment', async () => {
    const customer = (await org.call('POST', '/api/v1/customers', { body: { name: 'Customer Co' } })).body;
    const shared = await createBoard(org, { name: 'Shared board', prefix: 'SHR', customerIds: [customer.id] });
    const ticket = await createTicket(org, shared.id, { title: 'Talk about me', statusId: statuses.IN_PROGRESS!.id });
    const blocker = await createTicket(org, shared.id, { title: 'Do me first', statusId: statuses.IN_PROGRESS!.id });
    await page.goto(consoleUrl(`/boards/${shared.id}/tickets/${ticket.id}`), { waitUntil: 'load' });
    await page.waitForSelector('::-p-aria([name="Comments"][role="heading"])');

    await page.locator('::-p-aria([name="Blocker (display id)"][role="textbox"])').fill(blocker.displayId);
    await page.locator(button('Add blocker')).click();
    await waitForText(page, `${blocker.displayId} Do me first`);
    const dependencies = (await org.call('GET', `/api/v1/boards/${shared.id}/tickets/${ticket.id}/dependencies`)).body.data;
    expect(dependencies.blockedBy.map((item: { id: string }) => item.id)).toEqual([blocker.id]);

    const hostile = '<img src=x onerror="window.__pwned=4"> [go](javascript:window.__pwned=5)';
    await page.locator('::-p-aria([name="Comment"][role="textbox"])').fill(`Public note ${hostile}`);
    await page.locator(button('Add comment')).click();
    await waitForText(page, 'Public note <img src=x');
    await page.locator(button('Reply to Ada Admin')).click();
    await page.locator('::-p-aria([name="Reply"][role="textbox"])').fill('A reply in the thread');
    await page.locator(button('Send reply')).click();
    await waitForText(page, 'A reply in the thread');
    await page.locator('::-p-aria([name="Comment"][role="textbox"])').fill('Only for us');
    await page.locator('::-p-aria([name="Secret: only the organization\'s people and agents see it"][role="checkbox"])').click();
    await page.locator(button('Add comment')).click();
    await waitForText(page, 'Only for us');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.evaluate("document.querySelectorAll('main img, main a[href^=\"javascript:\"]').length")).toBe(0);
    const comments = (await org.call('GET', `/api/v1/boards/${shared.id}/tickets/${ticket.id}/comments`)).body.data;
    expect(comments.map((comment: { content: string; isSecret: boolean; parentId: string | null }) => [comment.content.slice(0, 11), comment.isSecret, comment.parentId !== null])).toEqual(
      expect.arrayContaining([
        ['Public note', false, false],
        ['A reply in ', false, true],
        ['Only for us', true, false],
      ]),
    );

    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.id, name: 'Client Person' });
    const customerContext = await browser.createBrowserContext();
    try {
      const customerPage = await customerContext.newPage();
      await customerPage.goto(consoleUrl(`/boards/${shared.id}/tickets/${ticket.id}`), { waitUntil: 'load' });
      await customerPage.waitForSelector('#email');
      await customerPage.type('#email', customerUser.email);
      await customerPage.type('#password', 'member password 1');
      await Promise.all([customerPage.waitForNavigation(), customerPage.locator(button('Sign in')).click()]);
      await waitForText(customerPage, 'A reply in the thread');
      const seen = await textOf(customerPage);
      expect(seen).toContain('Public note');
      expect(seen).not.toContain('Only for us');
      expect(seen).not.toContain('Secret');
    } finally {
      await customerContext.close();
    }
  });

  it('steers a running agent from the ticket page, pauses dispatch on Fleet, and returns a quarantined ticket from the Inbox', async () => {
    const steered = await createAgent(org, { agent: { name: 'Steered Bot', ownerId: org.adminId }, settings: { maxConcurrentClaims: 5 }, boardIds: [boardId] });
    const ticket = await createTicket(org, boardId, { title: 'Steer me', statusId: statuses.IN_PROGRESS!.id });
    const ticketPath = `/api/v1/boards/${boardId}/tickets/${ticket.id}`;
    expect((await steered.call('POST', `${ticketPath}/claim`, {})).status).toBe(201);
    await page.goto(consoleUrl(`/boards/${boardId}/tickets/${ticket.id}`), { waitUntil: 'load' });
    await page.waitForSelector('::-p-aria([name="Steer the agent"][role="heading"])');
    await page.type('#directive-message', 'Wait for the <b>review</b>');
    await page.locator(button('Pause')).click();
    await waitForText(page, 'Paused by');
    await waitForText(page, '(Wait for the <b>review</b>)');
    expect(await page.$('.directive b')).toBeNull();
    await page.type('#lease-note', 'The review is done');
    await page.locator(button('Send message')).click();
    await waitForText(page, 'Sent: the agent reads it at its next heartbeat.');
    const beat = (await steered.call('POST', `${ticketPath}/claim/heartbeat`, {})).body;
    expect([beat.directive.action, beat.directive.message, beat.messages.map((message: { text: string }) => message.text)]).toEqual(['pause', 'Wait for the <b>review</b>', ['The review is done']]);
    await page.locator(button('Resume')).click();
    await waitForText(page, 'Resumed by');
    await settle(page);
    const onTicket = await seriousAxeViolations(page);
    expect(onTicket).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'ticket-steer-1440.png') });
    await page.locator(button('Stop')).click();
    await waitForText(page, 'Stop requested by');
    expect((await steered.call('POST', `${ticketPath}/claim/heartbeat`, {})).body.directive.action).toBe('stop');

    // Fleet: the whole organization's breaker, thrown and lifted.
    await page.locator(link('Fleet')).click();
    await page.waitForSelector('#dispatch-reason');
    await page.type('#dispatch-reason', 'Incident review');
    await page.locator(button('Pause all dispatch')).click();
    await waitForText(page, 'Paused for the whole organization by');
    const paused = await steered.call('POST', '/api/v1/claims/next', {});
    expect([paused.status, paused.headers.get('x-dispatch-paused')]).toEqual([204, 'organization']);
    await settle(page);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'fleet-paused-1440.png') });
    await page.locator(button('Resume dispatch')).click();
    await waitForText(page, 'Agents are given new work.');
    expect((await org.call('GET', '/api/v1/organization')).body.dispatch.paused).toBe(false);

    // Inbox: a quarantined ticket with what its leases handed on, returned to the queue.
    const failing = await createTicket(org, boardId, { title: 'Keeps failing', statusId: statuses.IN_PROGRESS!.id });
    for (let lapse = 0; lapse < 3; lapse += 1) {
      expect((await steered.call('POST', `/api/v1/boards/${boardId}/tickets/${failing.id}/claim`, {})).status).toBe(201);
      await steered.call('POST', `/api/v1/boards/${boardId}/tickets/${failing.id}/claim/heartbeat`, { note: `Attempt ${lapse + 1} crashed` });
      await lapseClaim(failing.id);
      if (lapse < 2) await runSweep(systemClock, { orgId: org.orgId });
    }
    // The third lapse ends when someone tries to take it over.
    expect((await steered.call('POST', `/api/v1/boards/${boardId}/tickets/${failing.id}/claim`, {})).body.error.code).toBe('TICKET_QUARANTINED');
    await page.locator(link('Inbox')).click();
    await waitForText(page, 'Keeps failing');
    await waitForText(page, '3 lapsed leases in a row');
    await waitForText(page, 'Steered Bot: Attempt 3 crashed');
    await page.locator(button(`Return ${failing.displayId} to the queue`)).click();
    await waitForText(page, 'No ticket is quarantined.');
    expect((await org.call('GET', `/api/v1/boards/${boardId}/tickets/${failing.id}`)).body.data.quarantine).toBeNull();
  }, 90_000);

  it('has no serious or critical axe violation on any page, at a phone’s width or a desktop’s', async () => {
    const found: Record<string, unknown> = {};
    // A ticket with something in each panel: a comment, a blocker, a handoff.
    const blocker = await createTicket(org, boardId, { title: 'Axe blocker', statusId: statuses.IN_PROGRESS!.id });
    const ticket = await createTicket(org, boardId, { title: 'Axe me', description: '# Heading\n\nSome **text** and [a link](https://example.com).', statusId: statuses.IN_PROGRESS!.id });
    await org.call('PUT', `/api/v1/boards/${boardId}/tickets/${ticket.id}/dependencies/${blocker.id}`);
    await org.call('POST', `/api/v1/boards/${boardId}/tickets/${ticket.id}/comments`, { body: { content: 'A comment' } });
    for (const width of [1440, 390]) {
      await page.setViewport({ width, height: 900 });
      for (const name of ['Inbox', 'Fleet', 'Boards', 'Agents', 'People']) {
        await page.locator(link(name)).click();
        await page.waitForSelector(`::-p-aria([name="${name}"][role="heading"])`);
        await settle(page);
        const violations = await seriousAxeViolations(page);
        if (violations.length) found[`${name} at ${width}`] = violations;
        // Nothing reaches past the window's width (a wide table scrolls inside its own box).
        const overflowing = await page.evaluate(
          `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > ${width} + 1 && !e.closest('.table-wrap, .columns')).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`,
        );
        expect({ page: name, width, overflowing }).toEqual({ page: name, width, overflowing: [] });
        await page.screenshot({ path: path.join(SCREENSHOTS, `${name.toLowerCase()}-${width}.png`) });
        if (name === 'Boards') {
          // A board, with its cards and their Move buttons.
          await page.locator(link('Console board')).click();
          await page.waitForSelector('li[data-ticket-id]');
          const onBoard = await seriousAxeViolations(page);
          if (onBoard.length) found[`a board at ${width}`] = onBoard;
          await page.screenshot({ path: path.join(SCREENSHOTS, `board-${width}.png`) });
          // A ticket of it, with its panels.
          await page.locator(`li[data-ticket-id="${ticket.id}"] a`).click();
          await page.waitForSelector('::-p-aria([name="Timeline"][role="heading"])');
          await settle(page);
          const onTicket = await seriousAxeViolations(page);
          if (onTicket.length) found[`a ticket at ${width}`] = onTicket;
          await page.screenshot({ path: path.join(SCREENSHOTS, `ticket-${width}.png`) });
        }
      }
    }
    expect(found).toEqual({});
  }, 120_000);

  it('signs out at the server: the grant is revoked and the next visit asks for the password', async () => {
    await page.setViewport({ width: 1440, height: 900 });
    // Each load of the console gets a grant of its own: a reload leaves the earlier one, which signing out revokes too.
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector(button('Sign out'));
    const grantsBefore = (await org.call('GET', '/api/v1/oauth/grants')).body.data.filter((grant: { clientId: string }) => grant.clientId === 'console');
    expect(grantsBefore.length).toBeGreaterThan(1);
    await Promise.all([page.waitForNavigation(), page.locator(button('Sign out')).click()]);
    await page.waitForSelector('#email');
    const grantsAfter = (await org.call('GET', '/api/v1/oauth/grants')).body.data.filter((grant: { clientId: string }) => grant.clientId === 'console');
    expect(grantsAfter).toEqual([]);
    await page.goto(consoleUrl(), { waitUntil: 'load' });
    await page.waitForSelector('#email');
    expect(page.url()).toContain('/api/v1/oauth/authorize');
  });
});

describe('a person who is not signed in', () => {
  it('goes to the sign-in page and then back to the page they asked for', async () => {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.goto(consoleUrl('/fleet'), { waitUntil: 'load' });
      await signIn(page);
      await page.waitForSelector('::-p-aria([name="Fleet"][role="heading"])');
      expect(new URL(page.url()).pathname).toBe('/app/fleet');
    } finally {
      await context.close();
    }
  });
});

describe('people join and recover', () => {
  /** The page checked by axe-core and photographed at a phone's and a desktop's width. */
  async function checkPage(page: Page, name: string): Promise<void> {
    for (const width of [390, 1440]) {
      await page.setViewport({ width, height: 900 });
      expect({ name, width, violations: await seriousAxeViolations(page) }).toEqual({ name, width, violations: [] });
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`) });
    }
  }

  it('invites a person from the People page, who joins from the mailed link and signs in', async () => {
    const email = `joiner-${Date.now()}@example.test`;
    const admin = await browser.createBrowserContext();
    const invitee = await browser.createBrowserContext();
    try {
      const page = await admin.newPage();
      await page.setViewport({ width: 1440, height: 900 });
      await page.goto(consoleUrl('/people'), { waitUntil: 'load' });
      await signIn(page);
      await page.waitForSelector('::-p-aria([name="Invite a person"][role="heading"])');
      await page.locator('::-p-aria([name="Email"][role="textbox"])').fill(email);
      await page.locator(button('Invite')).click();
      await waitForText(page, `Invitation sent to ${email}`);
      await page.waitForSelector(`::-p-aria([name="Withdraw the invitation of ${email}"][role="button"])`);

      const { link: mailed } = await mailedToken(org.slug, email);
      const joining = await invitee.newPage();
      await joining.setViewport({ width: 1440, height: 900 });
      await joining.goto(mailed.href, { waitUntil: 'load' });
      await joining.waitForSelector('::-p-aria([name="Join your team"][role="heading"])');
      // The link's secret leaves the address at once.
      expect(new URL(joining.url()).searchParams.has('token')).toBe(false);
      await checkPage(joining, 'join');
      await joining.locator('::-p-aria([name="Name"][role="textbox"])').fill('Jo Joiner');
      await joining.type('#join-password', 'joiner password 1');
      await joining.locator(button('Join')).click();
      await waitForText(joining, `You joined as ${email}`);
      await Promise.all([joining.waitForNavigation(), joining.locator(button('Sign in')).click()]);
      await joining.waitForSelector('#email');
      expect(await joining.$eval('#email', (input) => (input as unknown as { value: string }).value)).toBe(email);
      await joining.type('#password', 'joiner password 1');
      await Promise.all([joining.waitForNavigation(), joining.locator(button('Sign in')).click()]);
      await joining.waitForSelector('::-p-aria([name="Inbox"][role="heading"])');
      await waitForText(joining, 'Jo Joiner');

      // The invitation is used: gone from the admin's list, and the person is a member.
      await page.waitForFunction(`!document.body.innerText.includes(${JSON.stringify(`Withdraw the invitation of ${email}`)}) && document.body.innerText.includes('Jo Joiner')`, { timeout: 15_000 });
    } finally {
      await Promise.all([admin.close(), invitee.close()]);
    }
  }, 90_000);

  it('resets a forgotten password from the sign-in page, with the link from the outbox, and signs in with the new one', async () => {
    const member = await createMember(org, { name: 'Forgetful Fern' });
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.setViewport({ width: 1440, height: 900 });
      await page.goto(consoleUrl(), { waitUntil: 'load' });
      await page.waitForSelector('#email');
      await Promise.all([page.waitForNavigation(), page.locator(link('Forgot password?')).click()]);
      await page.waitForSelector('::-p-aria([name="Forgot your password?"][role="heading"])');
      await checkPage(page, 'forgot');
      await page.locator('::-p-aria([name="Email"][role="textbox"])').fill(member.email);
      await page.locator(button('Send reset link')).click();
      await waitForText(page, 'Check your e-mail');

      // The platform operator's outbox (npm start keeps mail there) holds the link.
      await page.goto(consoleUrl('/outbox'), { waitUntil: 'load' });
      await page.waitForSelector('::-p-aria([name="Outbox"][role="heading"])');
      await page.type('#outbox-token', inject('platformAdminToken'));
      await page.locator(button('Show outbox')).click();
      await page.waitForSelector(link(`Open the link for ${member.email}`));
      await checkPage(page, 'outbox');
      await Promise.all([page.waitForNavigation(), page.locator(link(`Open the link for ${member.email}`)).click()]);
      await page.waitForSelector('::-p-aria([name="Set a new password"][role="heading"])');
      await checkPage(page, 'reset');
      await page.type('#reset-password', 'fresh password 99');
      await page.type('#reset-repeat', 'fresh password 99');
      await page.locator(button('Set password')).click();
      await waitForText(page, 'Your password is set');
      expect((await api('GET', '/api/v1/users/me', { token: member.token, org: org.slug })).status).toBe(401);

      await Promise.all([page.waitForNavigation(), page.locator(button('Sign in')).click()]);
      await page.waitForSelector('#email');
      await page.type('#email', member.email);
      await page.type('#password', 'fresh password 99');
      await Promise.all([page.waitForNavigation(), page.locator(button('Sign in')).click()]);
      await page.waitForSelector('::-p-aria([name="Inbox"][role="heading"])');
      await waitForText(page, 'Forgetful Fern');
    } finally {
      await context.close();
    }
  }, 90_000);
});

describe('the console’s documents', () => {
  it('are served with a strict policy: no inline script, no framing, hashed assets cached for a year', async () => {
    const response = await fetch(consoleUrl());
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const html = await response.text();
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
    expect(html).toContain(`<meta name="wm-organization" content="${org.slug}" />`);
    // The first load's JavaScript: the entry script and the chunks it imports (preloaded); the ticket page's comes later.
    const scripts = [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+\.js)"/g)].map((match) => match[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    let gzipped = 0;
    for (const script of scripts) {
      const asset = await fetch(`${inject('baseUrl')}${script}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      gzipped += Number(asset.headers.get('content-length') ?? (await asset.arrayBuffer()).byteLength);
    }
    expect(gzipped).toBeLessThan(150 * 1024);
    expect((await fetch(`${inject('baseUrl')}/app/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${inject('baseUrl')}/app/assets/..%2Fpackage.json`)).status).toBe(404);
  });

  it('escapes the organization it names and refuses a name that is not a slug', async () => {
    const html = await (await fetch(`${inject('baseUrl')}/app?org=${encodeURIComponent('"><script>alert(1)</script>')}`)).text();
    expect(html).not.toContain('<script>alert(1)</script>');
  });
});
