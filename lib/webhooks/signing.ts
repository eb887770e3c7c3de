import { createHmac, randomBytes } from 'node:crypto';

/**
 * A webhook endpoint's secret: `whsec_` + base64 of 32 random bytes. The whole string keys the
 * service's own signature; the bytes after the prefix key the Standard Webhooks signature, so
 * receivers can verify with either (docs/webhooks.md).
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface SignedHeaders {
  'x-service-signature-256': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The signature headers of one delivery attempt of `body` (the exact bytes sent):
 * `X-Service-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>` and the Standard Webhooks
 * trio (`webhook-id` = the delivery id, `webhook-timestamp` = Unix seconds of the attempt,
 * `webhook-signature: v1,<base64 HMAC-SHA256(secret bytes, "<id>.<timestamp>.<body>")>`).
 */
export function signDelivery(secret: string, deliveryId: string, at: Date, body: string): SignedHeaders {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return {
    'x-service-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    'webhook-id': deliveryId,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${createHmac('sha256', key).update(`${deliveryId}.${timestamp}.${body}`).digest('base64')}`,
  };
}
