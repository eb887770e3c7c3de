/**
 * `npm run bench` (OAuth): what an OAuth access token costs next to the other credentials on an
 * authenticated GET, what a refresh (rotation) costs, and what 20 concurrent refreshes with one
 * refresh token get: one rotation, every request answered its one pair, the grant alive. Requests come from varying addresses (the per-IP limits
 * are not what is measured). Prints figures for the README; asserts nothing.
 */
import { percentile, send } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { createGrant, oauthFetch } from '../support/oauth.js';

const REQUESTS = Number(process.env.BENCH_OAUTH_REQUESTS ?? 200);
const REFRESHES = Number(process.env.BENCH_OAUTH_REFRESHES ?? 100);
const randomIp = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

function summary(name: string, samples: { ms: number; roundTrips: number }[]): string {
  const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const mean = sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length;
  return `| ${name} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 95).toFixed(1)} | ${mean.toFixed(1)} | ${samples[0]!.roundTrips} |`;
}

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, logRequests: false, sweeperIntervalSeconds: 3600, exposeRoundTrips: true, trustForwardedFor: true });
  try {
    const base = runtime.baseUrl;
    const signup = await send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'OAuth bench', slug: 'oauthbench', name: 'Bench', email: 'admin@oauthbench.test', password: 'correct horse battery' });
    const session = signup.body.token as string;
    const host = `oauthbench.localhost:${runtime.port}`;
    const pat = (await send(base, 'POST', '/api/v1/users/me/tokens', { authorization: `Bearer ${session}`, 'x-organization': 'oauthbench' }, { name: 'bench' })).body.token as string;
    const grant = await createGrant({ slug: 'oauthbench', adminToken: session }, base, oauthFetch('a fresh address per request'));

    const timed = async (token: string) => {
      const samples = [];
      for (let index = 0; index < REQUESTS + 10; index += 1) {
        const sample = await send(base, 'GET', '/api/v1/users/me', { authorization: `Bearer ${token}`, host });
        if (sample.status !== 200) throw new Error(`GET /users/me: ${sample.status}`);
        if (index >= 10) samples.push(sample);
      }
      return samples;
    };
    const rows = [summary('session JWT', await timed(session)), summary('personal access token', await timed(pat)), summary('OAuth access token', await timed(grant.accessToken))];

    const fetch = oauthFetch('a fresh address per request');
    const refreshSamples: { ms: number; roundTrips: number }[] = [];
    let refreshToken = grant.refreshToken;
    for (let index = 0; index < REFRESHES; index += 1) {
      const started = performance.now();
      const response = await fetch(`http://${host}/api/v1/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret }),
      });
      const body = (await response.json()) as { refresh_token: string };
      if (response.status !== 200) throw new Error(`refresh: ${response.status} ${JSON.stringify(body)}`);
      refreshSamples.push({ ms: performance.now() - started, roundTrips: Number(response.headers.get('x-db-round-trips')) });
      refreshToken = body.refresh_token;
    }
    rows.push(summary('POST /oauth/token (refresh, rotation)', refreshSamples));

    const racers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`http://${host}/api/v1/oauth/token`, {
          method: 'POST',
          headers: { 'x-forwarded-for': randomIp() },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret }),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as { refresh_token?: string } })),
      ),
    );
    const pairs = new Set(racers.flatMap((racer) => (racer.body.refresh_token ? [racer.body.refresh_token] : [])));
    const alive = await fetch(`http://${host}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'x-forwarded-for': randomIp() },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: [...pairs][0] ?? '', client_id: grant.clientId, client_secret: grant.clientSecret }),
    });
    console.log(`\nOAuth: ${REQUESTS} sequential GET /api/v1/users/me per credential after 10 warm-up requests; ${REFRESHES} sequential refreshes\n`);
    console.log('| request | p50 ms | p95 ms | mean ms | round trips |\n|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log(
      `\n20 concurrent refreshes with one refresh token: ${racers.filter((racer) => racer.status === 200).length} answered 200, ${racers.filter((racer) => racer.status === 400).length} refused (invalid_grant); ${pairs.size} distinct pair(s); the pair's refresh token then answered ${alive.status}`,
    );
  } finally {
    await runtime.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
