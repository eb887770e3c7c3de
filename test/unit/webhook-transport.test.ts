import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../lib/core/config.js';
import { retryDelay } from '../../lib/webhooks/attempts.js';
import { parseRetryAfter, postWebhook } from '../../lib/webhooks/transport.js';
import { Receiver } from '../support/receiver.js';

/* The delivery transport's rules, with a real local receiver: what counts as success, what is refused before a byte is sent, and the retry pause. */
describe('webhook transport', () => {
  const receiver = new Receiver();
  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(() => receiver.stop());

  it('succeeds only on a 2xx and never follows a redirect', async () => {
    receiver.respond('/moved', () => ({ status: 302, headers: { location: `${receiver.url}/ok` } }));
    expect(await postWebhook(`${receiver.url}/ok`, {}, '{}', { allowLoopback: true })).toMatchObject({ statusCode: 200, success: true });
    expect(await postWebhook(`${receiver.url}/moved`, {}, '{}', { allowLoopback: true })).toMatchObject({ statusCode: 302, success: false, error: 'redirect (302) not followed' });
    expect(receiver.on('/ok')).toHaveLength(1);
  });

  it('refuses a host name that resolves to a non-public address at connection time, sending nothing', async () => {
    const port = new URL(receiver.url).port;
    const before = receiver.requests.length;
    const result = await postWebhook(`https://localhost:${port}/secret`, {}, '{}');
    expect(result).toMatchObject({ statusCode: 0, success: false, error: expect.stringMatching(/^refused to connect to the non-public address (127\.0\.0\.1|::1)$/) });
    expect(await postWebhook(`http://127.0.0.1:${port}/secret`, {}, '{}')).toMatchObject({ success: false, error: 'not an https:// URL' });
    expect(await postWebhook(`https://[::ffff:127.0.0.1]:${port}/secret`, {}, '{}')).toMatchObject({ success: false, error: expect.stringContaining('non-public address') });
    expect(receiver.requests.length).toBe(before);
  });

  it('gives up after the timeout', async () => {
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address() as { port: number };
    const result = await postWebhook(`http://127.0.0.1:${address.port}/`, {}, '{}', { allowLoopback: true, timeoutMs: 200 });
    expect(result).toMatchObject({ statusCode: 0, success: false, error: 'no response within 0.2 s' });
    silent.closeAllConnections();
    silent.close();
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:05:00 GMT', now)).toBe(300);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('pauses by the schedule ±10 %, longer when Retry-After asks, never over 12 hours', () => {
    process.env.WEBHOOK_RETRY_DELAYS_SECONDS = '60,300,43200';
    resetConfig();
    try {
      expect(retryDelay(1, {}, () => 0)).toBe(54);
      expect(retryDelay(1, {}, () => 0.999999)).toBe(66);
      expect(retryDelay(2, {}, () => 0.5)).toBe(300);
      expect(retryDelay(2, { retryAfterSeconds: 1000 }, () => 0.5)).toBe(1000);
      expect(retryDelay(2, { retryAfterSeconds: 10 }, () => 0.5)).toBe(300);
      expect(retryDelay(3, {}, () => 0.999999)).toBe(43200);
      expect(retryDelay(1, { retryAfterSeconds: 999_999 }, () => 0.5)).toBe(43200);
    } finally {
      delete process.env.WEBHOOK_RETRY_DELAYS_SECONDS;
      resetConfig();
    }
  });
});
