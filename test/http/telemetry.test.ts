import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useInProcess } from '../support/api.js';
import { createAgent, createBoard, createOrg, createTicket } from '../support/factories.js';
import { runSweep } from '../../lib/sweeper/index.js';

/**
 * The metrics a run publishes (CloudWatch embedded metric format, one JSON line each on stdout),
 * captured in process: what the claims and the sweeper count, and which dimensions they carry.
 */
useInProcess();

interface EmfLine {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [field: string]: unknown;
}

async function captureMetrics(run: () => Promise<void>): Promise<EmfLine[]> {
  const written: string[] = [];
  const saved = { format: process.env.LOG_FORMAT, requests: process.env.LOG_REQUESTS };
  process.env.LOG_FORMAT = 'json';
  process.env.LOG_REQUESTS = 'true';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
    process.env.LOG_FORMAT = saved.format;
    process.env.LOG_REQUESTS = saved.requests;
  }
  return written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{') && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as EmfLine);
}

const published = (lines: EmfLine[], name: string) => lines.filter((line) => line._aws.CloudWatchMetrics[0]!.Metrics.some((metric) => metric.Name === name));

describe('metrics', () => {
  afterEach(() => vi.restoreAllMocks());

  let world: Awaited<ReturnType<typeof build>>;
  async function build() {
    const org = await createOrg({ plan: 'PRO' });
    const board = await createBoard(org);
    const ticket = await createTicket(org, board.id);
    const [first, second] = [await createAgent(org, { boardIds: [board.id] }), await createAgent(org, { agent: { name: 'Second' }, boardIds: [board.id] })];
    return { org, board, ticket, first, second };
  }
  beforeAll(async () => {
    world = await build();
  });

  it('counts claims taken, refused (by reason) and expired, and each request by status class, with low-cardinality dimensions only', async () => {
    const { org, board, ticket, first, second } = world;
    const claim = `/api/v1/boards/${board.id}/tickets/${ticket.id}/claim`;
    const lines = await captureMetrics(async () => {
      expect((await first.call('POST', claim, { leaseSeconds: 60 })).status).toBe(201);
      expect((await second.call('POST', claim, {})).status).toBe(409);
      await runSweep({ now: () => new Date(Date.now() + 120_000) }, { orgId: org.orgId });
    });

    expect(published(lines, 'ClaimsTaken')).toHaveLength(1);
    const [refused] = published(lines, 'ClaimsRefused');
    expect(refused).toMatchObject({ ClaimsRefused: 1, reason: 'TICKET_ALREADY_CLAIMED' });
    expect(published(lines, 'ClaimsExpired')).toHaveLength(1);
    const requests = published(lines, 'Requests');
    expect(requests.map((line) => line.statusClass).sort()).toEqual(['2xx', '4xx']);
    expect(requests[0]!._aws.CloudWatchMetrics[0]!.Metrics).toEqual(expect.arrayContaining([{ Name: 'Latency', Unit: 'Milliseconds' }]));

    for (const line of lines) {
      const { Namespace, Dimensions } = line._aws.CloudWatchMetrics[0]!;
      expect(Namespace).toBe('WorkManagement');
      for (const name of Dimensions.flat()) expect(['service', 'function', 'statusClass', 'reason']).toContain(name);
      expect(JSON.stringify(line)).not.toContain(org.orgId);
      expect(JSON.stringify(line)).not.toContain(first.id);
    }
  });
});
