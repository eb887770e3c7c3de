import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signDelivery } from '../../lib/webhooks/signing.js';

/* A receiver verifies a delivery with tools of its own: node:crypto for the service's header, the standardwebhooks library for the standard ones. */
describe('webhook signatures', () => {
  const body = JSON.stringify({ id: 'evt_1', event: 'ticket.created', timestamp: '2026-11-22T10:00:00.000Z', organizationId: 'org_1', data: { ticketId: 'tkt_1' } });
  const at = new Date('2026-11-22T10:00:05.123Z');

  it('makes secrets of whsec_ and 32 random bytes, never the same twice', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('signs the raw body with the whole secret in X-Service-Signature-256', () => {
    const secret = newWebhookSecret();
    const headers = signDelivery(secret, 'dlv_1', at, body);
    expect(headers['x-service-signature-256']).toBe(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  });

  it('produces Standard Webhooks headers the standardwebhooks library verifies', () => {
    const secret = newWebhookSecret();
    const headers = signDelivery(secret, 'dlv_2', new Date(), body);
    expect(headers['webhook-id']).toBe('dlv_2');
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('fails verification for another body, another secret or an old timestamp', () => {
    const secret = newWebhookSecret();
    const headers = signDelivery(secret, 'dlv_3', new Date(), body);
    expect(() => new Webhook(secret).verify(body.replace('tkt_1', 'tkt_2'), headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    const old = signDelivery(secret, 'dlv_3', new Date(Date.now() - 10 * 60_000), body);
    expect(() => new Webhook(secret).verify(body, old)).toThrow();
  });

  it('puts the attempt time in webhook-timestamp as Unix seconds', () => {
    expect(signDelivery(newWebhookSecret(), 'dlv_4', at, body)['webhook-timestamp']).toBe('1795341605');
  });
});
