import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, must } from '../api';
import { Link } from '../router';
import { useMe } from '../hooks';
import { ago, minutesText, remaining } from '../time';
import { ErrorAlert } from '../alert';
import { useState } from 'react';
import { dollars } from '../money';

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
      <DispatchBreaker />
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
                <th scope="col">Spend, 7 days</th>
                <th scope="col">Time to approve</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {agents.map((agent) => (
                <FleetRow key={agent.id} agent={agent} orgId={orgId!} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function FleetRow({ agent, orgId }: { agent: FleetAgent; orgId: string }) {
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
  const pause = useMutation({
    mutationFn: async (dispatchPaused: boolean) =>
      must(await api.PATCH('/api/v1/organizations/{orgId}/agents/{agentId}', { params: { path: { orgId, agentId: agent.id } }, body: { dispatchPaused } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['fleet'] }),
  });
  return (
    <tr>
      <th scope="row">{agent.name}</th>
      <td data-label="Liveness">
        <span className={`dot ${state.tone}`} aria-hidden="true" /> {state.text}
        {agent.dispatchPaused ? <strong> · paused</strong> : null}
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
      <td data-label="Spend, 7 days">
        {dollars(agent.spendLast7DaysMicros)}
        {agent.monthlyBudgetMicros !== null ? <span className="muted"> (budget {dollars(agent.monthlyBudgetMicros)} a month)</span> : null}
      </td>
      <td data-label="Time to approve">{agent.pendingTime.count > 0 ? `${minutesText(agent.pendingTime.minutes)} (${agent.pendingTime.count})` : '—'}</td>
      <td>
        <span className="actions">
          {claim ? (
            <button type="button" className="secondary" disabled={release.isPending} onClick={() => release.mutate()} aria-label={`Release ${claim.displayId} from ${agent.name}`}>
              Release
            </button>
          ) : null}
          {agent.isActive ? (
            <button
              type="button"
              className="secondary"
              disabled={pause.isPending}
              onClick={() => pause.mutate(!agent.dispatchPaused)}
              aria-label={`${agent.dispatchPaused ? 'Resume' : 'Pause'} new work for ${agent.name}`}
            >
              {agent.dispatchPaused ? 'Resume' : 'Pause'}
            </button>
          ) : null}
        </span>
        {(release.error ?? pause.error) ? (
          <span role="alert" className="error">
            {' '}
            {(release.error ?? pause.error)!.message}
          </span>
        ) : null}
      </td>
    </tr>
  );
}

/**
 * The organization's dispatch breaker: while thrown, no agent is given new work; leases held
 * go on. Boards are paused one by one below it.
 */
function DispatchBreaker() {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const organization = useQuery({ queryKey: ['organization'], queryFn: async () => must(await api.GET('/api/v1/organization')) });
  const boards = useQuery({ queryKey: ['boards', 'dispatch'], queryFn: async () => must(await api.GET('/api/v1/boards', { params: { query: { limit: 100 } } })) });
  const toggle = useMutation({
    mutationFn: async (paused: boolean) => must(await api.PUT('/api/v1/organization/dispatch', { body: { paused, ...(paused && reason.trim() ? { reason: reason.trim() } : {}) } })),
    onSuccess: () => setReason(''),
    onSettled: () => void client.invalidateQueries({ queryKey: ['organization'] }),
  });
  const pauseBoard = useMutation({
    mutationFn: async ({ boardId, dispatchPaused }: { boardId: string; dispatchPaused: boolean }) => must(await api.PATCH('/api/v1/boards/{boardId}', { params: { path: { boardId } }, body: { dispatchPaused } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['boards'] }),
  });
  const dispatch = organization.data?.dispatch;
  const boardList = boards.data?.data ?? [];
  return (
    <section className="panel" aria-labelledby="dispatch-heading">
      <h2 id="dispatch-heading">Dispatch</h2>
      <ErrorAlert error={organization.error ?? toggle.error ?? pauseBoard.error} />
      {dispatch?.paused ? (
        <>
          <p className="directive" role="status">
            Paused for the whole organization by {dispatch.pausedBy?.name} {ago(dispatch.pausedAt)}
            {dispatch.reason ? <span className="muted"> ({dispatch.reason})</span> : null}. Agents get no new work; leases held go on.
          </p>
          <button type="button" className="primary" disabled={toggle.isPending} onClick={() => toggle.mutate(false)}>
            Resume dispatch
          </button>
        </>
      ) : dispatch ? (
        <form
          className="dispatch-form"
          onSubmit={(event) => {
            event.preventDefault();
            toggle.mutate(true);
          }}
        >
          <p className="muted">Agents are given new work. Pausing stops that at once, everywhere; leases held go on, and resuming restores the queue as it was.</p>
          <label htmlFor="dispatch-reason">Reason (optional)</label>
          <input id="dispatch-reason" maxLength={500} value={reason} onChange={(event) => setReason(event.target.value)} />
          <button type="submit" className="danger" disabled={toggle.isPending}>
            Pause all dispatch
          </button>
        </form>
      ) : null}
      {boardList.length > 0 ? <h3 className="subheading">Boards</h3> : null}
      {boardList.length > 0 ? (
        <ul className="plain board-dispatch">
          {boardList.map((board) => (
            <li key={board.id}>
              {board.name}: {board.dispatchPaused ? <strong>paused</strong> : 'open'}{' '}
              <button
                type="button"
                className="secondary"
                disabled={pauseBoard.isPending}
                onClick={() => pauseBoard.mutate({ boardId: board.id, dispatchPaused: !board.dispatchPaused })}
                aria-label={`${board.dispatchPaused ? 'Resume' : 'Pause'} dispatch on ${board.name}`}
              >
                {board.dispatchPaused ? 'Resume' : 'Pause'}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
