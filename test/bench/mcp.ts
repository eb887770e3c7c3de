/**
 * `npm run bench` (MCP): p50/p99 of `tools/call` for tickets_list, tickets_claim and
 * tickets_report through the local runtime with the official 2.x client, next to the same
 * operation over REST (tickets_report has no REST twin: it is set beside the release of a
 * claim, the REST ticket write closest to it), and the size of `tools/list`. Prints figures
 * for the README; asserts nothing.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { percentile, send } from './http.js';
import { startLocalRuntime } from '../../infra/local/runtime.js';
import { oauthFetch } from '../support/oauth.js';

const N = Number(process.env.BENCH_MCP_CALLS ?? 100);

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};

async function timed<T>(work: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, logRequests: false, sweeperIntervalSeconds: 3600 });
  try {
    const base = runtime.baseUrl;
    const signup = await send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'MCP bench', slug: 'mcpbench', name: 'Bench', email: 'admin@mcpbench.test', password: 'correct horse battery' });
    const admin = { authorization: `Bearer ${signup.body.token}`, 'x-organization': 'mcpbench' };
    await send(base, 'PATCH', '/api/v1/platform/organizations/mcpbench', { authorization: `Bearer ${runtime.platformAdminToken}` }, { plan: 'PRO' });
    await send(base, 'PATCH', `/api/v1/organizations/${signup.body.organization.id}/agents/policies`, admin, { statusTransitionsRequireApproval: [] });
    const board = (await send(base, 'POST', '/api/v1/boards', admin, { name: 'Bench', prefix: 'BN' })).body;
    const statuses = (await send(base, 'GET', '/api/v1/statuses', admin)).body.data as { id: string; key: string }[];
    const inProgress = statuses.find((status) => status.key === 'IN_PROGRESS')!.id;
    const agentsPath = `/api/v1/organizations/${signup.body.organization.id}/agents`;
    const agent = (await send(base, 'POST', agentsPath, admin, { name: 'Bench agent' })).body;
    await send(base, 'POST', `/api/v1/boards/${board.id}/members`, admin, { userId: agent.id });
    await send(base, 'PATCH', `${agentsPath}/${agent.id}`, admin, { maxConcurrentClaims: 1000 });
    const token = (await send(base, 'POST', `${agentsPath}/${agent.id}/tokens`, admin, { name: 'bench' })).body.token as string;
    const tickets: string[] = [];
    for (let index = 0; index < 4 * N + 40; index += 1) tickets.push((await send(base, 'POST', `/api/v1/boards/${board.id}/tickets`, admin, { title: `Bench ${index}`, statusId: inProgress })).body.data.id);

    const host = `mcpbench.localhost:${runtime.port}`;
    const client = new Client({ name: 'Bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://${host}/api/v1/mcp`), { fetch: oauthFetch() as never, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const rest = { authorization: `Bearer ${token}`, 'x-organization': 'mcpbench' };
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    };
    const restCall = async (method: string, path: string, body?: unknown) => {
      const response = await send(base, method, path, rest, body);
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    };

    // Warm up both paths.
    for (let index = 0; index < 10; index += 1) {
      await call('tickets_list', { boardId: board.id, limit: 20 });
      await restCall('GET', `/api/v1/issues?boardId=${board.id}&limit=20`);
    }
    const rows: [string, number[], number[]][] = [];
    const listMcp = [];
    const listRest = [];
    for (let index = 0; index < N; index += 1) {
      listMcp.push(await timed(() => call('tickets_list', { boardId: board.id, limit: 20 })));
      listRest.push(await timed(() => restCall('GET', `/api/v1/issues?boardId=${board.id}&limit=20`)));
    }
    rows.push(['tickets_list (20 of a board)', listMcp, listRest]);

    let next = 40;
    const claimMcp = [];
    const claimRest = [];
    const reportMcp = [];
    const releaseRest = [];
    for (let index = 0; index < N; index += 1) {
      const viaMcp = tickets[next++]!;
      const viaRest = tickets[next++]!;
      claimMcp.push(await timed(() => call('tickets_claim', { ticketId: viaMcp })));
      claimRest.push(await timed(() => restCall('POST', `/api/v1/boards/${board.id}/tickets/${viaRest}/claim`, {})));
      reportMcp.push(await timed(() => call('tickets_report', { ticketId: viaMcp, outcome: 'partial', summary: 'Bench run', releaseClaim: true })));
      releaseRest.push(await timed(() => restCall('DELETE', `/api/v1/boards/${board.id}/tickets/${viaRest}/claim`)));
    }
    rows.push(['tickets_claim', claimMcp, claimRest], ['tickets_report (REST: release the claim)', reportMcp, releaseRest]);

    const { tools } = await client.listTools();
    const catalogue = JSON.stringify(tools).length;
    console.log(`\nMCP: ${N} sequential calls per operation after 10 warm-up calls, official 2.x client vs REST (agent token)\n`);
    console.log('| operation | MCP p50 ms | MCP p99 ms | REST p50 ms | REST p99 ms | MCP / REST (p50) |\n|---|---|---|---|---|---|');
    for (const [name, mcp, viaRest] of rows) {
      const m = stats(mcp);
      const r = stats(viaRest);
      console.log(`| ${name} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${(m.p50 / r.p50).toFixed(2)} |`);
    }
    console.log(`\ntools/list: ${tools.length} tools, ${catalogue} characters (about ${Math.round(catalogue / 4)} tokens)`);
    await client.close();
  } finally {
    await runtime.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
