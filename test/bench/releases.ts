/**
 * `npm run bench` (milestones and releases): attach, detach, the release and milestone reads,
 * and the deletion of a release and of a milestone that hold many tickets, over real HTTP
 * against the local runtime. Prints tables for the README; asserts nothing.
 */
import { ok, printTable, send, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';

const RUNS = Number(process.env.BENCH_RELEASE_RUNS ?? 100);
const WARMUP = 5;
/** Tickets held by the release and the milestone that the deletion cases delete. */
const HELD = Number(process.env.BENCH_RELEASE_HELD ?? 200);

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, logRequests: false, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const slug = 'bench-releases';
    const signup = await ok(send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'Releases', slug, name: 'Bench Admin', email: `admin@${slug}.test`, password: 'bench password 1' }), 'signup');
    const admin = { authorization: `Bearer ${signup.token}`, 'x-organization': slug };
    const board = await ok(send(base, 'POST', '/api/v1/boards', admin, { name: 'Released work', prefix: 'REL' }), 'board');
    await ok(send(base, 'PATCH', `/api/v1/boards/${board.id}`, admin, { features: { milestonesAndReleases: true } }), 'feature');
    const b = `/api/v1/boards/${board.id}`;
    const newTicket = async (title: string, body: Record<string, unknown> = {}) => (await ok(send(base, 'POST', `${b}/tickets`, admin, { title, ...body }), 'ticket')).data.id as string;
    const milestones: string[] = [];
    for (let index = 0; index < 5; index += 1) milestones.push((await ok(send(base, 'POST', `${b}/milestones`, admin, { name: `Milestone ${index}`, dueDate: '2027-06-01' }), 'milestone')).id);
    const release = (await ok(send(base, 'POST', `${b}/releases`, admin, { name: 'Measured', version: '1.0.0', milestoneIds: milestones }), 'release')).id as string;
    const tickets: string[] = [];
    for (let index = 0; index < RUNS + WARMUP; index += 1) tickets.push(await newTicket(`Attached ${index}`));

    const rows: [string, Sample[]][] = [];
    const measure = async (name: string, run: (index: number) => Promise<Sample>) => {
      for (let warm = 0; warm < WARMUP; warm += 1) await run(warm);
      const samples: Sample[] = [];
      for (let index = 0; index < RUNS; index += 1) samples.push(await run(WARMUP + index));
      rows.push([name, samples]);
    };
    await measure('POST …/releases/{id}/tickets (attach)', (index) => send(base, 'POST', `${b}/releases/${release}/tickets`, admin, { ticketId: tickets[index] }));
    await measure(`GET …/releases/{id} (5 milestones, ${RUNS + WARMUP} tickets)`, () => send(base, 'GET', `${b}/releases/${release}`, admin));
    await measure('GET …/releases/{id}/tickets (first page of 20)', () => send(base, 'GET', `${b}/releases/${release}/tickets`, admin));
    await measure('GET …/releases (list)', () => send(base, 'GET', `${b}/releases`, admin));
    await measure('DELETE …/releases/{id}/tickets/{ticketId} (detach)', (index) => send(base, 'DELETE', `${b}/releases/${release}/tickets/${tickets[index]}`, admin));
    printTable(rows, `${RUNS} sequential requests per case after ${WARMUP} warm-up requests, local runtime + DynamoDB Local, Node ${process.version}`);

    // Deleting what holds many tickets: each ticket leaves in its own transaction, eight at a time.
    const doomedRelease = (await ok(send(base, 'POST', `${b}/releases`, admin, { name: 'Doomed' }), 'release')).id as string;
    const doomedMilestone = (await ok(send(base, 'POST', `${b}/milestones`, admin, { name: 'Doomed', dueDate: '2027-06-01' }), 'milestone')).id as string;
    for (let index = 0; index < HELD; index += 1) {
      const ticketId = await newTicket(`Held ${index}`, { milestoneId: doomedMilestone });
      await ok(send(base, 'POST', `${b}/releases/${doomedRelease}/tickets`, admin, { ticketId }), 'attach');
    }
    const deletions: [string, Sample][] = [
      [`DELETE …/releases/{id} holding ${HELD} tickets`, await send(base, 'DELETE', `${b}/releases/${doomedRelease}`, admin)],
      [`DELETE …/milestones/{id} holding ${HELD} tickets`, await send(base, 'DELETE', `${b}/milestones/${doomedMilestone}`, admin)],
    ];
    console.log('\n| deletion | ms | round trips | status |\n|---|---|---|---|');
    for (const [name, sample] of deletions) console.log(`| ${name} | ${sample.ms.toFixed(0)} | ${sample.roundTrips} | ${sample.status} |`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
