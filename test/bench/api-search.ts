/**
 * `npm run bench:api-search`: search on a board written through the API, as an outside client
 * writes one. 3,000 tickets are created with `POST …/tickets` by 8 writers (30 of them carry a
 * rare word); page 1 and the searches are timed 30 s after the last create (as an outside
 * client measured, whatever the events function has indexed by then), once it has indexed
 * everything, and while one person edits the board (two title edits a second): a word in 30
 * titles, a word in every title, a display id, and `/issues` with the rare word. Prints p50 and
 * the ratio to the unfiltered page 1 of the same moment. Asserts nothing.
 */
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { ok, percentile, send, timeCase, type Sample } from './http.js';

const TICKETS = Number(process.env.BENCH_TICKETS ?? 3000);
const WRITERS = 8;
const RARE_EVERY = Math.floor(TICKETS / 30);
const RUNS = 30;
/** BENCH_DESCRIPTION_WORDS=60: descriptions of that many distinct words, too many for a ticket's create to index it (it is left to the events function). */
const DESCRIPTION_WORDS = Number(process.env.BENCH_DESCRIPTION_WORDS ?? 0);
const descriptionOf = (index: number) =>
  DESCRIPTION_WORDS > 0 ? Array.from({ length: DESCRIPTION_WORDS }, (_, word) => `w${word}x${index % 97}`).join(' ') : `Written by writer for ticket ${index}.`;

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ port: 0, exposeRoundTrips: true, logRequests: false, credentialRateLimit: 0, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const slug = `bench-${Date.now().toString(36)}`;
    const signup = await ok(send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'Bench', slug, name: 'Ada', email: `ada@${slug}.test`, password: 'correct horse battery' }), 'signup');
    const headers = { authorization: `Bearer ${signup.token}`, 'x-organization': slug };
    const board = await ok(send(base, 'POST', '/api/v1/boards', headers, { name: 'Written through the API', prefix: 'API' }), 'board');
    const statuses = (await ok(send(base, 'GET', '/api/v1/statuses', headers), 'statuses')).data as { id: string; key: string }[];
    const inProgress = statuses.find((status) => status.key === 'IN_PROGRESS')!.id;
    const words = ['deploy', 'pipeline', 'cache', 'runner', 'flaky', 'timeout', 'release', 'canary', 'rollback', 'schema', 'migration', 'index'];
    const titleOf = (index: number) => `${words[index % words.length]} ${words[(index * 7) % words.length]} task ${index}${index % RARE_EVERY === 0 ? ' quetzal' : ''}`;

    const started = Date.now();
    let next = 0;
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (next < TICKETS) {
          const index = next++;
          const created = await ok(send(base, 'POST', `/api/v1/boards/${board.id}/tickets`, headers, { title: titleOf(index), statusId: inProgress, description: descriptionOf(index) }), 'create');
          ids[index] = created.data.id;
        }
      }),
    );
    console.log(`Created ${TICKETS} tickets through POST …/tickets with ${WRITERS} writers in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const quietFrom = Date.now();

    const page = () => send(base, 'GET', `/api/v1/boards/${board.id}/tickets?limit=20`, headers);
    const cases: [string, () => Promise<Sample>][] = [
      ['page 1, unfiltered', page],
      ['search: a word in 30 titles', () => send(base, 'GET', `/api/v1/boards/${board.id}/tickets?limit=20&search=quetzal`, headers)],
      ['search: a word in every title', () => send(base, 'GET', `/api/v1/boards/${board.id}/tickets?limit=20&search=task`, headers)],
      ['search: a display id', () => send(base, 'GET', `/api/v1/boards/${board.id}/tickets?limit=20&search=api-1234`, headers)],
      ['/issues, unfiltered', () => send(base, 'GET', '/api/v1/issues?limit=20', headers)],
      ['/issues search: a word in 30 titles', () => send(base, 'GET', '/api/v1/issues?limit=20&search=quetzal', headers)],
    ];
    const measure = async (label: string) => {
      console.log(`\n${label}\n\n| case | p50 ms | × page 1 | round trips | total |\n|---|---|---|---|---|`);
      const results: [string, Sample[]][] = [];
      for (const [name, run] of cases) results.push([name, await timeCase(name, run, RUNS, 3)]);
      const p50 = (samples: Sample[]) => percentile(samples.map((sample) => sample.ms).sort((a, b) => a - b), 50);
      const pageP50 = p50(results[0]![1]);
      const issuesP50 = p50(results[4]![1]);
      for (const [name, samples] of results) {
        const against = name.startsWith('/issues') ? issuesP50 : pageP50;
        console.log(`| ${name} | ${p50(samples).toFixed(1)} | ${(p50(samples) / against).toFixed(1)}× | ${[...new Set(samples.map((sample) => sample.roundTrips))].join('/')} | ${samples[0]!.body?.total ?? ''} |`);
      }
    };
    // As the outside measure: 30 s after the last create, whatever the events function has indexed by then.
    await new Promise((done) => setTimeout(done, 30_000));
    await measure(`30 s after the last create (the index may still be catching up)`);
    await runtime.drainStream();
    console.log(`\nStream drained ${((Date.now() - quietFrom) / 1000).toFixed(1)} s after the last create`);
    await measure(`Quiet: ${TICKETS} tickets written through the API, indexed`);

    // One person editing the board: two title edits a second, for as long as the cases run.
    let editing = true;
    const editor = (async () => {
      for (let edit = 0; editing; edit += 1) {
        const index = (edit * 37) % TICKETS;
        await send(base, 'PATCH', `/api/v1/boards/${board.id}/tickets/${ids[index]}`, headers, { title: `${titleOf(index)} edited ${edit}` });
        await new Promise((done) => setTimeout(done, 500));
      }
    })();
    await new Promise((done) => setTimeout(done, 3_000));
    await measure('Busy: the same board while one person edits two titles a second');
    editing = false;
    await editor;
  } finally {
    await runtime.stop();
  }
}

await main();
