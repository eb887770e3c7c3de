import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, must } from '../api';
import { Link } from '../router';
import { useMe } from '../hooks';
import { ago, minutesText, remaining } from '../time';
import { ErrorAlert } from '../alert';

const loadOverview = async (orgId: string) => must(await api.GET('/api/v1/organizations/{orgId}/agents/overview', { params: { path: { orgId } } }));
type FleetAgent = Awaited<ReturnType<typeof loadOverview>>['agents'][number];

/** Liveness from the age of the agent's last sign of life: green under 2 minutes, amber 2–5, red over 5 or a lapsed lease. */
export function liveness(agent: FleetAgent, now = Date.now()): { tone: 'green' | 'amber' | 'red' | 'grey'; text: string } {
  if (!agent.isActive) return { tone: 'grey', text: 'deactivated' };
  const lapsed = agent.openClaims.some((claim) => Date.parse(claim.claimExpiresAt) <= now);
  const age = agent.lastSeenAt ? (now - Date.parse(agent.lastSeenAt)) / 1000 : Number.POSITIVE_INFINITY;
  if (lapsed) return { tone: 'red', text: 'lease lapsed' };
  if (age < 120) return { tone: 'green', text: `live, seen ${ago(agent.lastSeenAt, now)}` };
  if (age <= 300) return { tone: 'amber', text: `quiet, seen ${ago(agent.lastSeenAt, now)}` };
  return { tone: 'red', text: agent.lastSeenAt ? `silent, seen ${ago(agent.lastSeenAt, now)}` : 'never seen' };
}

/** The fleet: one row per agent, what it is doing now and whether it is alive. */
export function FleetPage() {
  const me = useMe();
  const orgId = me.data?.organization.id;
  const overview = useQuery({
    queryKey: ['fleet', orgId],
    enabled: !!orgId,
    queryFn: () => loadOverview(orgId!),
  });
  const agents = overview.data?.agents ?? [];
  return (
    <section className="page">
      <h1>Fleet</h1>
      <ErrorAlert error={overview.error} />
      {overview.isSuccess && agents.length === 0 ? <p className="muted">No agents yet. Create one on the Agents page.</p> : null}
      {agents.length > 0 ? (
        <div className="table-wrap">
          <table className="fleet">
            <caption className="visually-hidden">Agents, what each is working on, and how recently each was seen</caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Liveness</th>
                <th scope="col">Working on</th>
                <th scope="col">Lease</th>
                <th scope="col">Claims, 7 days</th>
                <th scope="col">Time to approve</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {agents.map((agent) => (
                <FleetRow key={agent.id} agent={agent} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function FleetRow({ agent }: { agent: FleetAgent }) {
  const state = liveness(agent);
  const first = agent.openClaims[0];
  const claim = first && 'ticketId' in first ? first : undefined;
  const hiddenClaim = first !== undefined && claim === undefined;
  const client = useQueryClient();
  const release = useMutation({
    mutationFn: async () => {
      if (!claim) return;
      must(await api.DELETE('/api/v1/boards/{boardId}/tickets/{ticketId}/claim', { params: { path: { boardId: claim.boardId, ticketId: claim.ticketId } }, body: {} }));
    },
    onSettled: () => void client.invalidateQueries({ queryKey: ['fleet'] }),
  });
  return (
    <tr>
      <th scope="row">{agent.name}</th>
      <td data-label="Liveness">
        <span className={`dot ${state.tone}`} aria-hidden="true" /> {state.text}
      </td>
      <td data-label="Working on">
        {!agent.isActive ? (
          'deactivated'
        ) : claim ? (
          <>
            <Link to={`/app/boards/${claim.boardId}/tickets/${claim.ticketId}`}>
              {claim.displayId} {claim.title}
            </Link>
            {claim.note ? (
              <span className="note">
                {' '}
                <q>{claim.note}</q>
              </span>
            ) : null}
            {claim.client ? <span className="muted"> via {claim.client}</span> : null}
          </>
        ) : hiddenClaim ? (
          'a ticket on a board you cannot see'
        ) : (
          'idle'
        )}
      </td>
      <td data-label="Lease">{first ? remaining(first.claimExpiresAt) : '—'}</td>
      <td data-label="Claims, 7 days">
        {agent.claimsTakenLast7Days} taken, {agent.claimsExpiredLast7Days} lapsed
      </td>
      <td data-label="Time to approve">{agent.pendingTime.count > 0 ? `${minutesText(agent.pendingTime.minutes)} (${agent.pendingTime.count})` : '—'}</td>
      <td>
        {claim ? (
          <button type="button" className="secondary" disabled={release.isPending} onClick={() => release.mutate()} aria-label={`Release ${claim.displayId} from ${agent.name}`}>
            Release
          </button>
        ) : null}
        {release.error ? (
          <span role="alert" className="error">
            {' '}
            {release.error.message}
          </span>
        ) : null}
      </td>
    </tr>
  );
}
