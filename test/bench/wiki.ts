/**
 * `npm run bench` (wiki): page writes and reads, a 500,000-character page, the tree, and search
 * over a space of 50 pages of 20,000 characters (1 MB of text), over real HTTP against the
 * local runtime. Pages are limited to 60 per organization and hour, so the creates are
 * measured in a second organization. Prints a table for the README; asserts nothing.
 */
import { ok, printTable, send, type Sample } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';

const RUNS = Number(process.env.BENCH_WIKI_RUNS ?? 50);
const WARMUP = 5;
const SEEDED = 50;

async function organization(base: string, slug: string) {
  const signup = await ok(send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'Wiki', slug, name: 'Bench Admin', email: `admin@${slug}.test`, password: 'bench password 1' }), 'signup');
  const headers = { authorization: `Bearer ${signup.token}`, 'x-organization': slug };
  const space = await ok(send(base, 'POST', '/api/v1/wiki/spaces', headers, { name: 'Handbook' }), 'space');
  return { headers, spaceId: space.id as string };
}

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, logRequests: false, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const read = await organization(base, 'bench-wiki');
    const w = `/api/v1/wiki/spaces/${read.spaceId}`;
    const words = 'deploy rollback canary metrics dashboard runbook incident review owner service '.repeat(250).slice(0, 20_000);
    const pageIds: string[] = [];
    for (let index = 0; index < SEEDED - 1; index += 1) {
      pageIds.push((await ok(send(base, 'POST', `${w}/pages`, read.headers, { title: `Page ${index}`, content: `${words}${index === 7 ? ' needle-in-page-seven' : ''}` }), 'seed')).id);
    }
    const big = (await ok(send(base, 'POST', `${w}/pages`, read.headers, { title: 'Big', content: '漢字かなカナ'.repeat(83_334).slice(0, 500_000) }), 'big page')).id;

    const rows: [string, Sample[]][] = [];
    const measure = async (name: string, run: (index: number) => Promise<Sample>) => {
      for (let warm = 0; warm < WARMUP; warm += 1) await run(warm);
      const samples: Sample[] = [];
      for (let index = 0; index < RUNS; index += 1) samples.push(await run(WARMUP + index));
      rows.push([name, samples]);
    };
    await measure('GET …/pages/{id} (20,000 characters)', (index) => send(base, 'GET', `${w}/pages/${pageIds[index % pageIds.length]}`, read.headers));
    await measure('PATCH …/pages/{id} (new content: a version)', (index) => send(base, 'PATCH', `${w}/pages/${pageIds[index % pageIds.length]}`, read.headers, { content: `${words.slice(0, 19_000)} edit ${index}` }));
    await measure('GET …/pages/{id} (500,000 CJK characters, 6 chunks)', () => send(base, 'GET', `${w}/pages/${big}`, read.headers));
    await measure('GET …/spaces/{id}/tree (50 pages)', () => send(base, 'GET', `${w}/tree`, read.headers));
    await measure('GET …/pages?search= (50 pages, 2.5 MB of text)', () => send(base, 'GET', `${w}/pages?search=needle-in-page-seven`, read.headers));
    await measure('GET /wiki/search?q= (1 space, 50 pages, 2.5 MB)', () => send(base, 'GET', '/api/v1/wiki/search?q=needle-in-page-seven', read.headers));
    const write = await organization(base, 'bench-wiki-writes');
    await measure('POST …/pages (2,000 characters)', (index) => send(base, 'POST', `/api/v1/wiki/spaces/${write.spaceId}/pages`, write.headers, { title: `New ${index}`, content: words.slice(0, 2_000) }));
    printTable(rows, `${RUNS} sequential requests per case after ${WARMUP} warm-up requests, local runtime + DynamoDB Local, Node ${process.version}`);
  } finally {
    await runtime.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
