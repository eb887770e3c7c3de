import { useQuery } from '@tanstack/react-query';
import { api, must } from '../api';
import { useMe } from '../hooks';
import { ago } from '../time';

export function AgentsPage() {
  const me = useMe();
  const orgId = me.data?.organization.id;
  const agents = useQuery({
    queryKey: ['agents', orgId],
    enabled: !!orgId,
    queryFn: async () => must(await api.GET('/api/v1/organizations/{orgId}/agents', { params: { path: { orgId: orgId! } } })),
  });
  const rows = agents.data ?? [];
  return (
    <section className="page">
      <h1>Agents</h1>
      {agents.error ? <p role="alert">{agents.error.message}</p> : null}
      {agents.isSuccess && rows.length === 0 ? <p className="muted">No agents yet.</p> : null}
      <ul className="rows">
        {rows.map((agent) => (
          <li key={agent.id} className="row">
            <span className="what">
              {agent.name}
              <span className="muted">
                {' '}
                {agent.isActive ? 'active' : 'deactivated'} · {agent.tokenCount} token{agent.tokenCount === 1 ? '' : 's'} · seen {ago(agent.lastSeenAt)}
                {agent.owner ? ` · owner ${agent.owner.name}` : ''}
              </span>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
