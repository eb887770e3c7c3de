import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, must } from '../api';
import { useMe } from '../hooks';
import { Link, navigate } from '../router';
import { ago } from '../time';
import { ErrorAlert } from '../alert';

/** The agents of the organization, and a form to create one. */
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
      <ErrorAlert error={agents.error} />
      {orgId ? <NewAgent orgId={orgId} /> : null}
      {agents.isSuccess && rows.length === 0 ? <p className="muted">No agents yet.</p> : null}
      <ul className="rows">
        {rows.map((agent) => (
          <li key={agent.id} className="row">
            <span className="what">
              <Link to={`/app/agents/${agent.id}`}>{agent.name}</Link>
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

function NewAgent({ orgId }: { orgId: string }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: async () =>
      must(await api.POST('/api/v1/organizations/{orgId}/agents', { params: { path: { orgId } }, body: { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) } })),
    onSuccess: (agent) => {
      void client.invalidateQueries({ queryKey: ['agents'] });
      navigate(`/app/agents/${agent.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="new-agent">
      <h2 id="new-agent">New agent</h2>
      <div className="fields">
        <label className="field">
          Name
          <input required maxLength={100} value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label className="field">
          Description
          <input maxLength={2000} value={description} onChange={(event) => setDescription(event.target.value)} />
        </label>
      </div>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create agent
      </button>
      <ErrorAlert error={create.error} />
    </form>
  );
}

/** One agent: what it is, its tokens (mint with restrictions, the secret shown once; revoke). */
export function AgentPage({ agentId }: { agentId: string }) {
  const me = useMe();
  const orgId = me.data?.organization.id;
  const path = { orgId: orgId!, agentId };
  const agent = useQuery({
    queryKey: ['agent', agentId],
    enabled: !!orgId,
    queryFn: async () => must(await api.GET('/api/v1/organizations/{orgId}/agents/{agentId}', { params: { path } })),
  });
  const data = agent.data;
  return (
    <section className="page">
      <p>
        <Link to="/app/agents">All agents</Link>
      </p>
      <h1>{data?.name ?? 'Agent'}</h1>
      <ErrorAlert error={agent.error} />
      {data ? (
        <dl className="facts">
          <dt>State</dt>
          <dd>{data.isActive ? 'active' : 'deactivated'}</dd>
          <dt>Owner</dt>
          <dd>{data.owner?.name ?? 'nobody'}</dd>
          <dt>Claims at once</dt>
          <dd>{data.maxConcurrentClaims ?? 'the organization’s limit'}</dd>
          <dt>Weekly hours</dt>
          <dd>{data.weeklyHoursCap ?? 'no cap'}</dd>
          <dt>Time factor</dt>
          <dd>{data.timeFactor ?? 'the organization’s'}</dd>
          <dt>Last seen</dt>
          <dd>{ago(data.lastSeenAt)}</dd>
        </dl>
      ) : null}
      {orgId ? <Tokens orgId={orgId} agentId={agentId} /> : null}
    </section>
  );
}

function Tokens({ orgId, agentId }: { orgId: string; agentId: string }) {
  const client = useQueryClient();
  const path = { orgId, agentId };
  const tokens = useQuery({
    queryKey: ['agent-tokens', agentId],
    queryFn: async () => must(await api.GET('/api/v1/organizations/{orgId}/agents/{agentId}/tokens', { params: { path } })),
  });
  const boards = useQuery({ queryKey: ['boards'], queryFn: async () => must(await api.GET('/api/v1/boards', { params: { query: { limit: 100 } } })) });
  const [name, setName] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [denyDelete, setDenyDelete] = useState(false);
  const [clientLabel, setClientLabel] = useState('');
  const [expiresInDays, setExpiresInDays] = useState('');
  const [boardIds, setBoardIds] = useState<string[]>([]);
  /** The new token's secret: in this component's memory only, shown once. */
  const [secret, setSecret] = useState<string | undefined>();
  const [copied, setCopied] = useState(false);
  const mint = useMutation({
    mutationFn: async () =>
      must(
        await api.POST('/api/v1/organizations/{orgId}/agents/{agentId}/tokens', {
          params: { path },
          body: {
            name: name.trim(),
            readOnly,
            denyDelete,
            ...(clientLabel.trim() ? { clientLabel: clientLabel.trim() } : {}),
            ...(expiresInDays ? { expiresInDays: Number(expiresInDays) } : {}),
            ...(boardIds.length ? { allowedBoardIds: boardIds } : {}),
          },
        }),
      ),
    onSuccess: (created) => {
      setSecret(created.token);
      setCopied(false);
      setName('');
      void client.invalidateQueries({ queryKey: ['agent-tokens', agentId] });
    },
  });
  const revoke = useMutation({
    mutationFn: async (tokenId: string) => must(await api.DELETE('/api/v1/organizations/{orgId}/agents/{agentId}/tokens/{tokenId}', { params: { path: { ...path, tokenId } } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['agent-tokens', agentId] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mint.mutate();
  };
  const rows = tokens.data?.tokens ?? [];
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">Tokens</h2>
      {secret ? (
        <div className="secret" role="status">
          <p>
            <strong>The new token, shown this once:</strong> copy it now; it cannot be shown again.
          </p>
          <code>{secret}</code>
          <div className="actions">
            <button
              type="button"
              className="primary"
              onClick={() => {
                void navigator.clipboard.writeText(secret).then(() => setCopied(true));
              }}
            >
              Copy
            </button>
            <button type="button" className="secondary" onClick={() => setSecret(undefined)}>
              Done
            </button>
            {copied ? <span>Copied.</span> : null}
          </div>
        </div>
      ) : null}
      <form className="panel" onSubmit={submit} aria-labelledby="mint-title">
        <h3 id="mint-title">Mint a token</h3>
        <div className="fields">
          <label className="field">
            Token name
            <input required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />
          </label>
          <label className="field">
            Client label
            <input maxLength={200} value={clientLabel} onChange={(event) => setClientLabel(event.target.value)} />
          </label>
          <label className="field">
            Expires in days
            <input type="number" min={1} max={3650} value={expiresInDays} onChange={(event) => setExpiresInDays(event.target.value)} />
          </label>
        </div>
        <div className="checks">
          <label>
            <input type="checkbox" checked={readOnly} onChange={(event) => setReadOnly(event.target.checked)} /> Read only
          </label>
          <label>
            <input type="checkbox" checked={denyDelete} onChange={(event) => setDenyDelete(event.target.checked)} /> No deleting
          </label>
        </div>
        {(boards.data?.data.length ?? 0) > 0 ? (
          <fieldset>
            <legend>Only these boards (none: every board the agent may see)</legend>
            {boards.data!.data.map((board) => (
              <label key={board.id}>
                <input
                  type="checkbox"
                  checked={boardIds.includes(board.id)}
                  onChange={(event) => setBoardIds((now) => (event.target.checked ? [...now, board.id] : now.filter((id) => id !== board.id)))}
                />{' '}
                {board.name}
              </label>
            ))}
          </fieldset>
        ) : null}
        <button type="submit" className="primary" disabled={mint.isPending}>
          Mint token
        </button>
        <ErrorAlert error={mint.error} />
      </form>
      {tokens.isSuccess && rows.length === 0 ? <p className="muted">No tokens.</p> : null}
      <ul className="rows">
        {rows.map((token) => (
          <li key={token.id} className="row">
            <span className="what">
              {token.name}
              <span className="muted">
                {' '}
                {token.tokenPrefix}… · created {ago(token.createdAt)}
                {token.expiresAt ? ` · expires ${ago(token.expiresAt)}` : ''}
                {token.lastUsedAt ? ` · used ${ago(token.lastUsedAt)}` : ' · never used'}
              </span>
            </span>
            <span className="actions">
              <button type="button" className="danger" disabled={revoke.isPending} onClick={() => revoke.mutate(token.id)} aria-label={`Revoke ${token.name}`}>
                Revoke
              </button>
            </span>
          </li>
        ))}
      </ul>
      <ErrorAlert error={revoke.error} />
    </section>
  );
}
