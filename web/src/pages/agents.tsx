import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, must, type Schemas } from '../api';
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
      {orgId ? <Policies orgId={orgId} /> : null}
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
      {orgId && data ? <AgentSettings key={data.id} orgId={orgId} agent={data} /> : null}
      {orgId ? <Tokens orgId={orgId} agentId={agentId} /> : null}
    </section>
  );
}

type Agent = Schemas['Agent'];

/** A number field's text as the API takes it: blank is null (the organization's default, or no cap). */
const numberOrNull = (text: string): number | null => (text.trim() === '' ? null : Number(text));
const textOf = (value: number | null): string => (value === null ? '' : String(value));

/** The agent's limits and time settings, and whether it is active. */
function AgentSettings({ orgId, agent }: { orgId: string; agent: Agent }) {
  const client = useQueryClient();
  const [maxClaims, setMaxClaims] = useState(textOf(agent.maxConcurrentClaims));
  const [weeklyHours, setWeeklyHours] = useState(textOf(agent.weeklyHoursCap));
  const [timeFactor, setTimeFactor] = useState(textOf(agent.timeFactor));
  const [saved, setSaved] = useState(false);
  const update = useMutation({
    mutationFn: async (body: { maxConcurrentClaims?: number | null; weeklyHoursCap?: number | null; timeFactor?: number | null; isActive?: boolean }) =>
      must(await api.PATCH('/api/v1/organizations/{orgId}/agents/{agentId}', { params: { path: { orgId, agentId: agent.id } }, body })),
    onMutate: () => setSaved(false),
    onSuccess: (updated) => {
      client.setQueryData(['agent', agent.id], updated);
      void client.invalidateQueries({ queryKey: ['agents'] });
      void client.invalidateQueries({ queryKey: ['fleet'] });
      setSaved(true);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ maxConcurrentClaims: numberOrNull(maxClaims), weeklyHoursCap: numberOrNull(weeklyHours), timeFactor: numberOrNull(timeFactor) });
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="agent-settings">
      <h2 id="agent-settings">Limits and time</h2>
      <div className="fields">
        <label className="field">
          Claims at once
          <input type="number" min={1} max={50} step={1} value={maxClaims} onChange={(event) => setMaxClaims(event.target.value)} aria-describedby="blank-default" />
        </label>
        <label className="field">
          Weekly hours cap
          <input type="number" min={1} max={168} step="any" value={weeklyHours} onChange={(event) => setWeeklyHours(event.target.value)} aria-describedby="blank-default" />
        </label>
        <label className="field">
          Time factor
          <input type="number" min={1} max={10} step="any" value={timeFactor} onChange={(event) => setTimeFactor(event.target.value)} aria-describedby="blank-default" />
        </label>
      </div>
      <p id="blank-default" className="muted">
        Blank: the organization&apos;s default (claims), no cap (hours), no factor (time).
      </p>
      <span className="actions">
        <button type="submit" className="primary" disabled={update.isPending}>
          Save settings
        </button>
        <button type="button" className={agent.isActive ? 'danger' : 'secondary'} disabled={update.isPending} onClick={() => update.mutate({ isActive: !agent.isActive })}>
          {agent.isActive ? 'Deactivate agent' : 'Activate agent'}
        </button>
      </span>
      <ErrorAlert error={update.error} />
      <p role="status" className="muted">
        {saved ? 'Saved.' : ''}
      </p>
    </form>
  );
}

/** The organization's agent policies: which statuses need a person's approval, and human review of agents' pull requests. */
function Policies({ orgId }: { orgId: string }) {
  const client = useQueryClient();
  const policies = useQuery({
    queryKey: ['agent-policies', orgId],
    refetchInterval: false,
    queryFn: async () => must(await api.GET('/api/v1/organizations/{orgId}/agents/policies', { params: { path: { orgId } } })),
  });
  const [gated, setGated] = useState<string[] | undefined>();
  const [review, setReview] = useState<boolean | undefined>();
  const [saved, setSaved] = useState(false);
  const data = policies.data;
  const chosen = gated ?? data?.statusTransitionsRequireApproval ?? [];
  const reviewed = review ?? data?.prsRequireHumanReview ?? false;
  const update = useMutation({
    mutationFn: async () =>
      must(await api.PATCH('/api/v1/organizations/{orgId}/agents/policies', { params: { path: { orgId } }, body: { statusTransitionsRequireApproval: chosen, prsRequireHumanReview: reviewed } })),
    onMutate: () => setSaved(false),
    onSuccess: (updated) => {
      client.setQueryData(['agent-policies', orgId], updated);
      setGated(undefined);
      setReview(undefined);
      setSaved(true);
    },
  });
  if (!data) return <ErrorAlert error={policies.error} />;
  return (
    <form
      className="panel"
      aria-labelledby="agent-policies"
      onSubmit={(event) => {
        event.preventDefault();
        update.mutate();
      }}
    >
      <h2 id="agent-policies">Agent policies</h2>
      <fieldset>
        <legend>An agent needs a person&apos;s approval to move a ticket into</legend>
        {data.gateableStatusKeys.map((key) => (
          <label key={key} className="check">
            <input type="checkbox" checked={chosen.includes(key)} onChange={(event) => setGated(event.target.checked ? [...chosen, key] : chosen.filter((other) => other !== key))} /> {key}
          </label>
        ))}
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={reviewed} onChange={(event) => setReview(event.target.checked)} /> Agents&apos; pull requests need a person&apos;s review
      </label>
      <p>
        <button type="submit" className="primary" disabled={update.isPending}>
          Save policies
        </button>
      </p>
      <ErrorAlert error={update.error} />
      <p role="status" className="muted">
        {saved ? 'Saved.' : ''}
      </p>
    </form>
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
