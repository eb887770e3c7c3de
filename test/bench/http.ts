import { request } from 'node:http';

/** One timed request of a benchmark, with the runtime's round-trip count. */
export interface Sample {
  ms: number;
  roundTrips: number;
  status: number;
  body: any;
}

export function send(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Sample> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), { method, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ ms, status: res.statusCode ?? 0, roundTrips: Number(res.headers['x-db-round-trips'] ?? NaN), body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
