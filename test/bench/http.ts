import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';

/** One timed request of a benchmark, with the runtime's round trips and (from `timeCase`) read capacity units. */
export interface Sample {
  ms: number;
  roundTrips: number;
  readUnits: number;
  status: number;
  body: any;
}

/**
 * Whether requests ask the local runtime for their consumed capacity (`x-db-capacity`). DynamoDB
 * Local spends time computing it (a third more on a large COUNT), so timed requests do not ask;
 * `timeCase` sends one more request that does.
 */
let askCapacity = false;

export function send(baseUrl: string, method: string, path: string, given: Record<string, string>, body?: unknown): Promise<Sample> {
  const headers = askCapacity ? { ...given, 'x-db-capacity': 'true' } : given;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), { method, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ ms, status: res.statusCode ?? 0, roundTrips: Number(res.headers['x-db-round-trips'] ?? NaN), readUnits: Number(res.headers['x-db-read-units'] ?? NaN), body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The body of a setup request that must succeed (throws naming `what` otherwise). */
export async function ok(sample: Promise<Sample>, what: string): Promise<any> {
  const result = await sample;
  if (result.status >= 300) throw new Error(`${what}: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

/** Runs one case `warmup` times unmeasured, then `runs` times in sequence; throws naming it if any measured request failed. */
export async function timeCase(name: string, run: () => Promise<Sample>, runs: number, warmup: number): Promise<Sample[]> {
  for (let warm = 0; warm < warmup; warm += 1) await run();
  const samples: Sample[] = [];
  for (let index = 0; index < runs; index += 1) samples.push(await run());
  // The read units, from one more request that asks for them (not timed).
  askCapacity = true;
  const metered = await run().finally(() => {
    askCapacity = false;
  });
  for (const sample of samples) sample.readUnits = metered.readUnits;
  const failed = samples.find((sample) => sample.status >= 400);
  if (failed) throw new Error(`${name} answered ${failed.status}: ${JSON.stringify(failed.body)}`);
  return samples;
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Prints one table row per case (p50, p95, mean, the distinct round-trip counts); throws if any request of a case failed. */
export function printTable(rows: [string, Sample[]][], header: string): void {
  console.log(`\n${header}\n`);
  console.log('| request | p50 ms | p95 ms | mean ms | round trips |');
  console.log('|---|---|---|---|---|');
  for (const [name, samples] of rows) {
    const failed = samples.find((sample) => sample.status >= 300);
    if (failed) throw new Error(`${name} answered ${failed.status} ${JSON.stringify(failed.body)}`);
    const times = samples.map((sample) => sample.ms).sort((a, b) => a - b);
    const mean = times.reduce((sum, ms) => sum + ms, 0) / times.length;
    const trips = [...new Set(samples.map((sample) => sample.roundTrips))].sort((a, b) => a - b).join('/');
    console.log(`| ${name} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} | ${mean.toFixed(1)} | ${trips} |`);
  }
}

/**
 * One cell of a growth table: p50 time, its ratio to the unfiltered page at that size, the
 * round trips seen, the read capacity units of the case (DynamoDB's measure of the bytes read:
 * 4 KB strongly consistent, 8 KB eventually consistent each; from `timeCase`'s metered request)
 * and the list's total when it has one.
 */
export function growthCell(samples: Sample[], unfilteredMs: number): { p50: number; cell: string } {
  const p50 = percentile(samples.map((sample) => sample.ms).sort((a, b) => a - b), 50);
  const trips = [...new Set(samples.map((sample) => sample.roundTrips))].join('/');
  const units = samples[0]!.readUnits;
  const total = samples[0]!.body?.total;
  return { p50, cell: `${p50.toFixed(0)} ms, ${(p50 / (unfilteredMs || p50)).toFixed(1)}×, ${trips} rt, ${units} RU${total === undefined ? '' : ` (total ${total})`}` };
}

/** CPU time so far, in ms: this process (the runtime and the bench's clients) and DynamoDB Local's JVM (Linux /proc; NaN elsewhere). */
export function cpuSpent(): { node: number; dynamo: number } {
  const usage = process.cpuUsage();
  let dynamo = Number.NaN;
  try {
    const pid = readdirSync('/proc').find((entry) => /^\d+$/.test(entry) && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('DynamoDBLocal') && readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === String(process.pid));
    if (pid) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // utime and stime (fields 14 and 15 of stat; 12 and 13 after the command), in clock ticks of 10 ms.
      dynamo = (Number(fields[11]) + Number(fields[12])) * 10;
    }
  } catch {
    // Not Linux, or the process went away: the figure is left out.
  }
  return { node: (usage.user + usage.system) / 1000, dynamo };
}

/** DynamoDB calls this process sends, counted by operation and by failure, from `countCalls` on (one counter for the whole process). */
export interface CallCounts {
  calls: Map<string, number>;
  failures: Map<string, number>;
}

let counting: CallCounts | undefined;
let counterInstalled = false;

/** Starts counting the DynamoDB calls of this process afresh (the runtime runs in it): the counts so far are dropped. */
export function countCalls(client: { middlewareStack: { add: (middleware: any, options: any) => void } }): CallCounts {
  if (!counterInstalled) {
    counterInstalled = true;
    client.middlewareStack.add(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
        const counts = counting;
        const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
        if (counts) counts.calls.set(operation, (counts.calls.get(operation) ?? 0) + 1);
        try {
          return await next(args);
        } catch (error) {
          // A cancelled transaction is named by its reasons (ConditionalCheckFailed, TransactionConflict).
          const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.map((reason) => reason.Code).filter((code) => code && code !== 'None');
          const name = `${operation}: ${reasons?.length ? reasons.join('+') : (error as Error).name}`;
          if (counts) counts.failures.set(name, (counts.failures.get(name) ?? 0) + 1);
          throw error;
        }
      },
      { step: 'initialize', name: 'benchCallCounter' },
    );
  }
  counting = { calls: new Map(), failures: new Map() };
  return counting;
}

/** Stops counting: the counts returned by `countCalls` stay as they are. */
export function stopCounting(): void {
  counting = undefined;
}

/** The counts divided by `per`, as "Query 3.1, TransactWriteItems 1.2": calls per claim, say. */
export const perUnit = (counts: Map<string, number>, per: number): string =>
  [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => `${name} ${(count / per).toFixed(2)}`).join(', ') || 'none';
