import { ok, send } from '../test/bench/http.js';
import { startLocalRuntime } from '../infra/local/runtime.js';
import { seedBoard } from '../test/bench/seed.js';
import { db } from '../lib/db/service.js';

const N = Number(process.env.N ?? 5000);
const runtime = await startLocalRuntime({ credentialRateLimit: 0, port: 0, exposeRoundTrips: true, logRequests: false, sweeperIntervalSeconds: 3600 });
try {
  const base = runtime.baseUrl;
  const slug = `bench-recat-${Date.now()}`;
  const signup = await ok(send(base, 'POST', '/api/v1/auth/signup', {}, { organizationName: 'Recat', slug, name: 'Bench Admin', email: `admin@${slug}.test`, password: 'bench password 1' }), 'signup');
  const admin = { authorization: `Bearer ${signup.token}`, 'x-organization': slug };
  const orgId = signup.organization?.id ?? signup.user?.orgId;
  const board = await ok(send(base, 'POST', '/api/v1/boards', admin, { name: 'Recat', prefix: 'RCT' }), 'board');
  const status = await ok(send(base, 'POST', '/api/v1/statuses', admin, { name: 'Review', color: '#123456', category: 'ACTIVE' }), 'status');
  const types = await ok(send(base, 'GET', '/api/v1/ticket-types', admin), 'types');
  const oid = signup.organization.id;
  const uid = signup.user.id;
  console.log('org', oid, 'user', uid);
  await seedBoard({ orgId: oid, boardId: board.id, prefix: 'RCT' }, { activeStatusIds: [status.id], typeId: types.data[0].id, assignee: { id: uid, name: 'Bench Admin' }, createdById: uid }, N, 1, { searchIndex: false });
  const col = () => send(base, 'GET', `/api/v1/boards/${board.id}/tickets?statusId=${status.id}&includeArchived=true`, admin);
  const before = await col();
  console.log('column page 1 before', before.ms.toFixed(0), 'ms', before.roundTrips, 'rt');
  const started = Date.now();
  const patched = await send(base, 'PATCH', `/api/v1/statuses/${status.id}`, admin, { category: 'FINAL' });
  console.log('PATCH', patched.status, patched.ms.toFixed(0), 'ms', patched.roundTrips, 'rt');
  const during = await col();
  console.log('column page 1 during', during.ms.toFixed(0), 'ms', during.roundTrips, 'rt', during.body?.total);
  for (;;) {
    const item = (await db().entities.status.get({ orgId: oid, statusId: status.id }).go({ consistent: true })).data;
    if (!item?.recategorizing) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log('job done after', ((Date.now() - started) / 1000).toFixed(1), 's for', N, 'tickets');
  const after = await col();
  console.log('column page 1 after', after.ms.toFixed(0), 'ms', after.roundTrips, 'rt', after.body?.total);
} finally {
  await runtime.stop();
}
