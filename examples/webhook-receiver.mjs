#!/usr/bin/env node
/**
 * A webhook receiver in plain Node (18+), no dependencies: it checks each delivery's signature
 * over the raw body before reading it, answers 2xx at once, deduplicates retries by delivery id,
 * and prints one JSON line per delivery it accepts.
 *
 * Configuration (environment):
 *   WEBHOOK_SECRET    the endpoint's secret (whsec_…), shown once when the endpoint is created
 *   RECEIVER_PORT     where to listen on 127.0.0.1 (default 4000)
 *   EXIT_AFTER        stop after this many accepted deliveries (default: run until stopped)
 *
 * Run: WEBHOOK_SECRET=whsec_… node examples/webhook-receiver.mjs
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const SECRET = process.env.WEBHOOK_SECRET;
const PORT = Number(process.env.RECEIVER_PORT ?? 4000);
const EXIT_AFTER = Number(process.env.EXIT_AFTER ?? Infinity);

if (!SECRET) {
  console.error('Set WEBHOOK_SECRET to the endpoint secret (whsec_…).');
  process.exit(2);
}

/** `X-Service-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with the whole secret>`, compared in constant time. */
function verified(rawBody, header) {
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(rawBody).digest('hex')}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const seen = new Set();
let accepted = 0;

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    if (request.method !== 'POST' || !verified(rawBody, request.headers['x-service-signature-256'])) {
      response.writeHead(401).end();
      return;
    }
    response.writeHead(204).end();
    const deliveryId = request.headers['x-service-delivery'];
    if (seen.has(deliveryId)) return; // a retry of a delivery already handled
    seen.add(deliveryId);
    const delivery = JSON.parse(rawBody.toString('utf8'));
    console.log(JSON.stringify({ received: delivery.event, deliveryId, verified: true, data: delivery.data }));
    accepted += 1;
    if (accepted >= EXIT_AFTER) server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => console.error(`Receiving webhooks at http://127.0.0.1:${PORT}/hooks`));
