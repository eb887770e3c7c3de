/**
 * `npm run bench` (webhooks): 1,000 events to 3 endpoints on a local receiver, one of which
 * fails 30 % of its requests at random. Reports event → first delivery p50/p99 and the attempts
 * made, and proves from the receiver's own log that every (event, endpoint) pair was received
 * successfully exactly once (failed attempts counted apart). Retries run on a short schedule so
 * the run ends in minutes; the mechanism is the deployed one (SQS visibility).
 * Prints figures for the README; asserts nothing but the exactly-once proof.
 */
import { percentile, send } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { Receiver } from '../support/receiver.js';
import { db } from '../../lib/db/service.js';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CLIENTS ?? 2);
const PATHS = ['/steady-a', '/steady-b', '/flaky'];
/**
 * The most retries a schedule may have, short pauses: with 11 attempts a pair fails for good
 * with probability 0.3^11 ≈ 2·10⁻⁶ (the default 8 attempts give 0.3^8 ≈ 7·10⁻⁵, and would park
 * about one of the 1,000 flaky pairs in the dead-letter queue in 14 runs).
 */
const RETRIES = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5];

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, logRequests: false, sweeperIntervalSeconds: 3600, webhookAllowLoopback: true, webhookRetryDelaysSeconds: RETRIES });
  const receiver = await new Receiver().start();
  receiver.respond('/flaky', () => ({ status: Math.random() < 0.3 ? 503 : 200 }));
  try {
    const base = runtime.baseUrl;
    const signup = await send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'Hooks', slug: 'hooks', name: 'Bench', email: 'bench@hooks.test', password: 'bench password 1' });
    const session = { authorization: `Bearer ${signup.body.token}`, 'x-organization': 'hooks' };
    await send(base, 'PATCH', '/api/v1/platform/organizations/hooks', { authorization: `Bearer ${runtime.platformAdminToken}` }, { plan: 'PRO' });
    const endpointIds: string[] = [];
    for (const path of PATHS) {
      const created = await send(base, 'POST', '/api/v1/webhook-endpoints', session, { name: path, url: `${receiver.url}${path}`, events: ['ticket.created'] });
      if (created.status !== 201) throw new Error(`endpoint: ${created.status}`);
      endpointIds.push(created.body.id);
    }
    const board = (await send(base, 'POST', '/api/v1/boards', session, { name: 'Hooks', prefix: 'HK' })).body;

    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < EVENTS) {
          next += 1;
          const created = await send(base, 'POST', `/api/v1/boards/${board.id}/tickets`, session, { title: `Event ${next}` });
          if (created.status !== 201) throw new Error(`ticket: ${created.status}`);
        }
      }),
    );
    const createdIn = Date.now() - started;

    // Wait until every (event, endpoint) pair has a successful request (or give up after 3 minutes).
    const pairsSucceeded = () => new Set(receiver.requests.filter((request) => request.status < 300).map((request) => `${JSON.parse(request.body).id} ${request.path}`));
    const deadline = Date.now() + 180_000;
    while (pairsSucceeded().size < EVENTS * PATHS.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    const allDoneIn = Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 3000)); // anything late or duplicated shows up now

    const successes = new Map<string, number>();
    const firstSeen = new Map<string, number>();
    const eventTime = new Map<string, number>();
    for (const request of receiver.requests) {
      const envelope = JSON.parse(request.body) as { id: string; timestamp: string };
      const pair = `${envelope.id} ${request.path}`;
      eventTime.set(envelope.id, Date.parse(envelope.timestamp));
      if (!firstSeen.has(pair)) firstSeen.set(pair, request.receivedAt);
      if (request.status < 300) successes.set(pair, (successes.get(pair) ?? 0) + 1);
    }
    // Where the time goes: event → its delivery records (the stream consumer's fan-out), from the table.
    const orgId = signup.body.organization.id as string;
    const records = (await Promise.all(endpointIds.map((endpointId) => db().entities.webhookDelivery.query.byEndpoint({ orgId, endpointId }).go({ pages: 'all' })))).flatMap((page) => page.data);
    const fanOut = records.map((record) => Date.parse(record.createdAt) - eventTime.get(record.eventId)!).filter(Number.isFinite).sort((a, b) => a - b);
    const latencies = [...firstSeen].map(([pair, at]) => at - eventTime.get(pair.split(' ')[0]!)!).sort((a, b) => a - b);
    const exactlyOnce = successes.size === EVENTS * PATHS.length && [...successes.values()].every((count) => count === 1);
    const failed = receiver.requests.filter((request) => request.status >= 300).length;
    const deliveryIdsPerPair = new Map<string, Set<string>>();
    for (const request of receiver.requests) {
      const pair = `${JSON.parse(request.body).id} ${request.path}`;
      deliveryIdsPerPair.set(pair, (deliveryIdsPerPair.get(pair) ?? new Set()).add(String(request.headers['x-service-delivery'])));
    }
    const stableIds = [...deliveryIdsPerPair.values()].every((ids) => ids.size === 1);

    console.log(`\nWebhooks: ${EVENTS} events × ${PATHS.length} endpoints (one failing 30 % at random), local runtime, retries after ${RETRIES.join('/')} s, Node ${process.version}\n`);
    console.log('| figure | value |');
    console.log('|---|---|');
    console.log(`| events created (${CONCURRENCY} concurrent clients) | ${(createdIn / 1000).toFixed(1)} s |`);
    console.log(`| event → fanned out to the queue, p50 / p99 | ${percentile(fanOut, 50)} / ${percentile(fanOut, 99)} ms |`);
    console.log(`| event → first delivery attempt, p50 | ${percentile(latencies, 50)} ms |`);
    console.log(`| event → first delivery attempt, p99 | ${percentile(latencies, 99)} ms |`);
    console.log(`| every pair delivered after | ${(allDoneIn / 1000).toFixed(1)} s |`);
    console.log(`| attempts in all | ${receiver.requests.length} (${receiver.requests.length - failed} successful, ${failed} failed and retried) |`);
    console.log(`| pairs received successfully exactly once | ${exactlyOnce ? 'yes' : 'NO'}: ${successes.size} of ${EVENTS * PATHS.length} |`);
    console.log(`| one delivery id per pair across its retries | ${stableIds ? 'yes' : 'NO'} |`);
    if (!exactlyOnce || !stableIds) process.exitCode = 1;
  } finally {
    await receiver.stop();
    await runtime.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
