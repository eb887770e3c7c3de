import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { ApiError, api, must, type Schemas } from '../api';
import type { paths } from '../api/schema';
import { ErrorAlert } from '../alert';
import { can, useMe } from '../hooks';
import { MarkdownText } from '../markdown';
import { Link } from '../router';
import { ago, minutesText, remaining } from '../time';
import { dollars } from '../money';

type FullTicket = Schemas['FullTicket'];
type TicketChange = Omit<NonNullable<paths['/api/v1/boards/{boardId}/tickets/{ticketId}']['patch']['requestBody']>['content']['application/json'], 'expectedUpdatedAt'>;

interface TicketPath {
  boardId: string;
  ticketId: string;
}

/** The panels beside the ticket change less often than it: polled every 30 seconds, not 5. */
const SLOW = 30_000;

const ticketKey = (ticketId: string) => ['ticket', ticketId];
const loadTicket = async (path: TicketPath) => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}', { params: { path } })).data;

/** A day as the date input holds it (`2031-03-04`), from the API's timestamp. */
const dayOf = (iso: string | null): string => (iso ? iso.slice(0, 10) : '');

/**
 * One ticket, every field editable where it is shown. Each edit is sent with the `updatedAt` the
 * page read (`expectedUpdatedAt`): when someone changed the ticket in between, the API refuses it
 * (409 STALE_UPDATE) and the field shows the other change beside the person's own, to keep
 * theirs (sent again over the new version) or take the other.
 */
export function TicketPage({ boardId, ticketId }: TicketPath) {
  const path = { boardId, ticketId };
  const me = useMe();
  const ticket = useQuery({ queryKey: ticketKey(ticketId), queryFn: () => loadTicket(path) });
  const data = ticket.data;
  const editable = can(me.data?.permissions, 'tickets:edit');
  return (
    <section className="page ticket-page">
      <p>
        <Link to={`/app/boards/${boardId}`}>Back to the board</Link>
      </p>
      <ErrorAlert error={ticket.error} />
      {data ? (
        <>
          <h1>
            <span className="muted">{data.displayId}</span> {data.title}
          </h1>
          <div className="ticket-grid">
            <div>
              <TicketFields ticket={data} path={path} editable={editable} />
              <Comments path={path} mayWriteSecret={can(me.data?.permissions, 'tickets:add-secret-comments') && me.data?.role !== 'CUSTOMER'} />
              <Timeline path={path} />
            </div>
            <div>
              <ClaimPanel ticket={data} path={path} />
              <Dependencies path={path} editable={editable} />
              <Subtickets path={path} count={data.subticketIds.length} />
              <TimePanel path={path} />
              <PullRequests path={path} />
              <Handoffs path={path} />
            </div>
          </div>
        </>
      ) : (
        <h1>Ticket</h1>
      )}
    </section>
  );
}

function TicketFields({ ticket, path, editable }: { ticket: FullTicket; path: TicketPath; editable: boolean }) {
  const statuses = useQuery({ queryKey: ['board-statuses', path.boardId], queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/statuses', { params: { path: { boardId: path.boardId } } })) });
  const users = useQuery({ queryKey: ['users'], queryFn: async () => must(await api.GET('/api/v1/users', { params: { query: { limit: 100 } } })), enabled: editable });
  const types = useQuery({ queryKey: ['ticket-types'], queryFn: async () => must(await api.GET('/api/v1/ticket-types')), enabled: editable });
  const labels = useQuery({ queryKey: ['labels'], queryFn: async () => must(await api.GET('/api/v1/labels')), enabled: editable });
  const statusOptions = (statuses.data?.data ?? []).filter((status) => status.enabled).map((status) => ({ value: status.id, label: status.name }));
  const userOptions = [{ value: '', label: 'Nobody' }, ...(users.data?.data ?? []).filter((user) => user.isActive).map((user) => ({ value: user.id, label: user.isAgent ? `${user.name} (agent)` : user.name }))];
  const typeOptions = (types.data?.data ?? []).map((type) => ({ value: type.id, label: type.name }));
  const common = { ticket, path, editable };
  return (
    <dl className="facts ticket-fields">
      <Editable {...common} label="Title" current={(t) => t.title} toChange={(value) => ({ title: value })} editor={(props) => <input {...props} required maxLength={200} />} />
      <Editable
        {...common}
        label="Status"
        current={(t) => t.status.id}
        show={(t) => t.status.name}
        toChange={(value) => ({ statusId: value })}
        editor={(props) => <Select {...props} options={statusOptions} />}
      />
      <Editable
        {...common}
        label="Priority"
        current={(t) => t.priority}
        toChange={(value) => ({ priority: value as FullTicket['priority'] })}
        editor={(props) => <Select {...props} options={['low', 'medium', 'high', 'critical'].map((value) => ({ value, label: value }))} />}
      />
      <Editable
        {...common}
        label="Assignee"
        current={(t) => t.assignee?.id ?? ''}
        show={(t) => t.assignee?.name ?? 'Nobody'}
        toChange={(value) => ({ assigneeId: value || null })}
        editor={(props) => <Select {...props} options={userOptions} />}
      />
      <Editable
        {...common}
        label="Due date"
        current={(t) => dayOf(t.dueDate)}
        show={(t) => dayOf(t.dueDate) || 'None'}
        toChange={(value) => ({ dueDate: value || null })}
        editor={(props) => <input type="date" {...props} />}
      />
      <Editable {...common} label="Type" current={(t) => t.type.id} show={(t) => t.type.name} toChange={(value) => ({ typeId: value })} editor={(props) => <Select {...props} options={typeOptions} />} />
      <Editable
        {...common}
        label="Labels"
        current={(t) => t.labels.map((label) => label.id).join(',')}
        show={(t) => t.labels.map((label) => label.name).join(', ') || 'None'}
        toChange={(value) => ({ labelIds: value ? value.split(',') : [] })}
        editor={(props) => <LabelPicker {...props} options={(labels.data?.data ?? []).map((label) => ({ value: label.id, label: label.name }))} />}
      />
      <Editable
        {...common}
        label="Estimate (hours)"
        current={(t) => (t.estimatedHours === null ? '' : String(t.estimatedHours))}
        show={(t) => (t.estimatedHours === null ? 'None' : `${t.estimatedHours} h`)}
        toChange={(value) => ({ estimatedHours: value === '' ? null : Number(value) })}
        editor={(props) => <input type="number" min={0} step="any" {...props} />}
      />
      <Editable
        {...common}
        label="Description"
        current={(t) => t.description}
        show={(t) => (t.description ? <MarkdownText text={t.description} /> : 'None')}
        toChange={(value) => ({ description: value })}
        editor={(props) => <textarea rows={8} {...props} />}
      />
    </dl>
  );
}

interface EditorProps {
  id: string;
  value: string;
  onChange: (event: { target: { value: string } }) => void;
}

function Select({ options, ...props }: EditorProps & { options: { value: string; label: string }[] }) {
  return (
    <select {...props}>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}

/** Labels as checkboxes; the value is their ids joined by commas. */
function LabelPicker({ id, value, onChange, options }: EditorProps & { options: { value: string; label: string }[] }) {
  const chosen = new Set(value ? value.split(',') : []);
  const toggle = (labelId: string) => {
    if (chosen.has(labelId)) chosen.delete(labelId);
    else chosen.add(labelId);
    onChange({ target: { value: [...chosen].join(',') } });
  };
  return (
    <fieldset id={id} className="choices">
      <legend className="visually-hidden">Labels</legend>
      {options.length === 0 ? <span className="muted">No labels yet.</span> : null}
      {options.map((option) => (
        <label key={option.value}>
          <input type="checkbox" checked={chosen.has(option.value)} onChange={() => toggle(option.value)} /> {option.label}
        </label>
      ))}
    </fieldset>
  );
}

interface EditableProps {
  ticket: FullTicket;
  path: TicketPath;
  editable: boolean;
  label: string;
  /** The field's value as the editor holds it. */
  current: (ticket: FullTicket) => string;
  /** The field as the page shows it (the value itself when absent). */
  show?: (ticket: FullTicket) => ReactNode;
  toChange: (value: string) => TicketChange;
  editor: (props: EditorProps) => ReactNode;
}

/**
 * A field shown as text with an `Edit` button; editing sends the change guarded by the version
 * the page read. A conflict (someone else changed the ticket meanwhile) keeps the person's value
 * in the editor and shows the other one: `Keep mine` sends it again over the new version, `Take
 * theirs` drops it.
 */
function Editable({ ticket, path, editable, label, current, show, toChange, editor }: EditableProps) {
  const client = useQueryClient();
  const id = useId();
  const [value, setValue] = useState<string | undefined>();
  const [conflict, setConflict] = useState<FullTicket | undefined>();
  const save = useMutation({
    mutationFn: async ({ over }: { over: FullTicket }) =>
      must(await api.PATCH('/api/v1/boards/{boardId}/tickets/{ticketId}', { params: { path }, body: { ...toChange(value ?? ''), expectedUpdatedAt: over.updatedAt } })).data,
    onSuccess: (saved) => {
      client.setQueryData(ticketKey(path.ticketId), saved);
      void client.invalidateQueries({ queryKey: ['timeline', path.ticketId] });
      setValue(undefined);
      setConflict(undefined);
    },
    onError: async (error) => {
      if (error instanceof ApiError && error.code === 'STALE_UPDATE') {
        const latest = await loadTicket(path);
        client.setQueryData(ticketKey(path.ticketId), latest);
        setConflict(latest);
      }
    },
  });
  const shown = (t: FullTicket) => (show ? show(t) : current(t) || 'None');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ over: ticket });
  };
  const cancel = () => {
    setValue(undefined);
    setConflict(undefined);
    save.reset();
  };
  return (
    <>
      <dt id={`${id}-label`}>{label}</dt>
      <dd>
        {value === undefined ? (
          <div className="shown">
            <div className="value">{shown(ticket)}</div>
            {editable ? (
              <button type="button" className="link" aria-label={`Edit ${label.toLowerCase()}`} onClick={() => setValue(current(ticket))}>
                Edit
              </button>
            ) : null}
          </div>
        ) : (
          <form className="edit" onSubmit={submit} aria-labelledby={`${id}-label`}>
            <label htmlFor={id} className="visually-hidden">
              {label}
            </label>
            {editor({ id, value, onChange: (event) => setValue(event.target.value) })}
            {conflict ? (
              <div role="alert" className="conflict">
                <p>
                  <strong>{label} was changed by someone else</strong> while you edited it.
                </p>
                <p>Theirs: {shown(conflict)}</p>
                <p>Yours: {value || 'None'}</p>
                <span className="actions">
                  <button type="button" className="primary" disabled={save.isPending} onClick={() => save.mutate({ over: conflict })}>
                    Keep mine
                  </button>
                  <button type="button" className="secondary" onClick={cancel}>
                    Take theirs
                  </button>
                </span>
              </div>
            ) : (
              <>
                {save.error && !(save.error instanceof ApiError && save.error.code === 'STALE_UPDATE') ? <ErrorAlert error={save.error} /> : null}
                <span className="actions">
                  <button type="submit" className="primary" disabled={save.isPending}>
                    Save
                  </button>
                  <button type="button" className="secondary" onClick={cancel}>
                    Cancel
                  </button>
                </span>
              </>
            )}
          </form>
        )}
      </dd>
    </>
  );
}

function ClaimPanel({ ticket, path }: { ticket: FullTicket; path: TicketPath }) {
  const client = useQueryClient();
  const release = useMutation({
    mutationFn: async () => must(await api.DELETE('/api/v1/boards/{boardId}/tickets/{ticketId}/claim', { params: { path }, body: {} })),
    onSettled: () => void client.invalidateQueries({ queryKey: ticketKey(path.ticketId) }),
  });
  const claim = ticket.claim;
  return (
    <section className="panel" aria-labelledby="claim-heading">
      <h2 id="claim-heading">Claim</h2>
      {claim ? (
        <>
          <dl className="facts">
            <dt>Held by</dt>
            <dd>
              {claim.claimedBy.name}
              {claim.claimedBy.isAgent ? ' (agent)' : ''}
              {claim.client ? <span className="muted"> via {claim.client}</span> : null}
            </dd>
            <dt>Lease</dt>
            <dd>{remaining(claim.claimExpiresAt)}</dd>
            <dt>Heartbeat</dt>
            <dd>{ago(claim.claimHeartbeatAt)}</dd>
            <dt>Claimed</dt>
            <dd>{claim.claimCount === 1 ? 'once' : `${claim.claimCount} times`} in all</dd>
          </dl>
          {claim.directive ? (
            <p className="directive" role="status">
              {DIRECTIVE_WORDS[claim.directive.action]} by {claim.directive.requestedBy.name} {ago(claim.directive.requestedAt)}
              {claim.directive.stopDeadline ? `; the lease ends ${remaining(claim.directive.stopDeadline)} at the latest` : ''}
              {claim.directive.message ? <span className="muted"> ({claim.directive.message})</span> : null}
            </p>
          ) : null}
          <ErrorAlert error={release.error} />
          <span className="actions">
            <button type="button" className="secondary" disabled={release.isPending} onClick={() => release.mutate()}>
              Release claim
            </button>
          </span>
          {claim.claimedBy.isAgent ? <SteerLease ticket={ticket} path={path} /> : null}
        </>
      ) : (
        <p className="muted">Not claimed{ticket.isReady ? '; ready for an agent' : ticket.openBlockerCount > 0 ? `; waiting for ${ticket.openBlockerCount} blocker${ticket.openBlockerCount === 1 ? '' : 's'}` : ''}.</p>
      )}
      {ticket.quarantine ? <Quarantine ticket={ticket} path={path} /> : null}
      {ticket.spend && ticket.spend.runs + ticket.spend.costMicros > 0 ? (
        <p>
          Spend: {dollars(ticket.spend.costMicros)} over {ticket.spend.runs} run{ticket.spend.runs === 1 ? '' : 's'}
          <span className="muted">
            {' '}
            ({ticket.spend.inputTokens.toLocaleString('en-US')} tokens in, {ticket.spend.outputTokens.toLocaleString('en-US')} out)
          </span>
        </p>
      ) : null}
    </section>
  );
}

const DIRECTIVE_WORDS = { stop: 'Stop requested', pause: 'Paused', resume: 'Resumed' } as const;

/** Stop, pause or resume the agent holding the lease, or write to it: it hears both in its next heartbeat. */
function SteerLease({ ticket, path }: { ticket: FullTicket; path: TicketPath }) {
  const client = useQueryClient();
  const [message, setMessage] = useState('');
  const [note, setNote] = useState('');
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ticketKey(path.ticketId) });
    void client.invalidateQueries({ queryKey: ['timeline', path.ticketId] });
  };
  const direct = useMutation({
    mutationFn: async (action: 'stop' | 'pause' | 'resume') =>
      must(await api.POST('/api/v1/boards/{boardId}/tickets/{ticketId}/claim/directive', { params: { path }, body: { action, ...(message.trim() ? { message: message.trim() } : {}) } })),
    onSuccess: () => setMessage(''),
    onSettled: refresh,
  });
  const send = useMutation({
    mutationFn: async () => must(await api.POST('/api/v1/boards/{boardId}/tickets/{ticketId}/claim/messages', { params: { path }, body: { text: note.trim() } })),
    onSuccess: () => setNote(''),
    onSettled: refresh,
  });
  const action = ticket.claim?.directive?.action;
  const stopping = action === 'stop';
  return (
    <div className="steer">
      <h3>Steer the agent</h3>
      <label htmlFor="directive-message">Why (optional, the agent reads it)</label>
      <input id="directive-message" className="steer-field" maxLength={1000} value={message} onChange={(event) => setMessage(event.target.value)} disabled={stopping} />
      <ErrorAlert error={direct.error} />
      <span className="actions">
        {action === 'pause' ? (
          <button type="button" className="secondary" disabled={direct.isPending} onClick={() => direct.mutate('resume')}>
            Resume
          </button>
        ) : (
          <button type="button" className="secondary" disabled={direct.isPending || stopping} onClick={() => direct.mutate('pause')}>
            Pause
          </button>
        )}
        <button type="button" className="danger" disabled={direct.isPending || stopping} onClick={() => direct.mutate('stop')}>
          Stop
        </button>
      </span>
      <form
        className="steer-message"
        onSubmit={(event) => {
          event.preventDefault();
          if (note.trim()) send.mutate();
        }}
      >
        <label htmlFor="lease-note">Message to the agent</label>
        <textarea id="lease-note" className="steer-field" rows={2} maxLength={1000} value={note} required onChange={(event) => setNote(event.target.value)} />
        <ErrorAlert error={send.error} />
        {send.isSuccess ? <p role="status">Sent: the agent reads it at its next heartbeat.</p> : null}
        <button type="submit" className="secondary" disabled={send.isPending}>
          Send message
        </button>
      </form>
    </div>
  );
}

/** A quarantined ticket: why, and the way back to the queue. */
function Quarantine({ ticket, path }: { ticket: FullTicket; path: TicketPath }) {
  const client = useQueryClient();
  const lift = useMutation({
    mutationFn: async () => must(await api.DELETE('/api/v1/boards/{boardId}/tickets/{ticketId}/quarantine', { params: { path } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ticketKey(path.ticketId) }),
  });
  const quarantine = ticket.quarantine!;
  return (
    <div className="quarantine" role="status">
      <p>
        Quarantined {ago(quarantine.since)}: {quarantine.lapses} leases in a row lapsed. Agents do not take it until it is returned to the queue.
      </p>
      <ErrorAlert error={lift.error} />
      <button type="button" className="secondary" disabled={lift.isPending} onClick={() => lift.mutate()}>
        Return to queue
      </button>
    </div>
  );
}

function Dependencies({ path, editable }: { path: TicketPath; editable: boolean }) {
  const client = useQueryClient();
  const key = ['dependencies', path.ticketId];
  const dependencies = useQuery({ refetchInterval: SLOW, queryKey: key, queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}/dependencies', { params: { path } })) });
  const [blocker, setBlocker] = useState('');
  const refresh = () => {
    void client.invalidateQueries({ queryKey: key });
    void client.invalidateQueries({ queryKey: ticketKey(path.ticketId) });
  };
  const add = useMutation({
    mutationFn: async (blockerId: string) => must(await api.PUT('/api/v1/boards/{boardId}/tickets/{ticketId}/dependencies/{blockerId}', { params: { path: { ...path, blockerId } } })),
    onSuccess: () => setBlocker(''),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: async (blockerId: string) => must(await api.DELETE('/api/v1/boards/{boardId}/tickets/{ticketId}/dependencies/{blockerId}', { params: { path: { ...path, blockerId } } })),
    onSettled: refresh,
  });
  const data = dependencies.data?.data;
  const ref = (item: Schemas['DependencyRef']) => (
    <>
      <Link to={`/app/boards/${item.boardId}/tickets/${item.id}`}>
        {item.displayId} {item.title}
      </Link>{' '}
      <span className="muted">{item.status.name}</span>
    </>
  );
  return (
    <section className="panel" aria-labelledby="dependencies-heading">
      <h2 id="dependencies-heading">Dependencies</h2>
      <ErrorAlert error={dependencies.error ?? add.error ?? remove.error} />
      <h3>Blocked by</h3>
      {data?.blockedBy.length ? (
        <ul className="plain">
          {data.blockedBy.map((item) => (
            <li key={item.id}>
              {ref(item)}
              {editable ? (
                <>
                  {' '}
                  <button type="button" className="link" aria-label={`Remove blocker ${item.displayId}`} onClick={() => remove.mutate(item.id)}>
                    Remove
                  </button>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">Nothing.</p>
      )}
      <h3>Blocks</h3>
      {data?.blocks.length ? (
        <ul className="plain">
          {data.blocks.map((item) => (
            <li key={item.id}>{ref(item)}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">Nothing.</p>
      )}
      {editable ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (blocker.trim()) add.mutate(blocker.trim());
          }}
        >
          <label htmlFor="blocker">Blocker (display id)</label>
          <input id="blocker" value={blocker} maxLength={100} onChange={(event) => setBlocker(event.target.value)} placeholder="PLAT-12" />
          <button type="submit" className="secondary" disabled={add.isPending}>
            Add blocker
          </button>
        </form>
      ) : null}
    </section>
  );
}

function Subtickets({ path, count }: { path: TicketPath; count: number }) {
  const subtickets = useQuery({
    refetchInterval: SLOW, queryKey: ['subtickets', path.ticketId],
    enabled: count > 0,
    queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}/subtickets', { params: { path } })),
  });
  if (count === 0) return null;
  const data = subtickets.data;
  return (
    <section className="panel" aria-labelledby="subtickets-heading">
      <h2 id="subtickets-heading">Subtickets</h2>
      <ErrorAlert error={subtickets.error} />
      {data ? (
        <>
          <p className="muted">
            {data.aggregation.completed} of {data.aggregation.total} done
          </p>
          <ul className="plain">
            {data.data.map((item) => (
              <li key={item.id}>
                <Link to={`/app/boards/${path.boardId}/tickets/${item.id}`}>
                  {item.displayId} {item.title}
                </Link>{' '}
                <span className="muted">{item.status.name}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function TimePanel({ path }: { path: TicketPath }) {
  const summary = useQuery({
    refetchInterval: SLOW, queryKey: ['time-summary', path.ticketId],
    queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}/time-entries/summary-with-budget', { params: { path } })),
  });
  const data = summary.data;
  return (
    <section className="panel" aria-labelledby="time-heading">
      <h2 id="time-heading">Time</h2>
      <ErrorAlert error={summary.error} />
      {data ? (
        <dl className="facts">
          <dt>Tracked</dt>
          <dd>{minutesText(data.trackedMinutes)}</dd>
          <dt>Estimate</dt>
          <dd>{data.estimatedMinutes === null ? 'None' : minutesText(data.estimatedMinutes)}</dd>
          <dt>Budget</dt>
          <dd>{data.estimatedMinutes === null ? '—' : data.isOverBudget ? `Over by ${minutesText(-(data.remainingMinutes ?? 0))}` : `${minutesText(data.remainingMinutes ?? 0)} left`}</dd>
          <dt>Awaiting approval</dt>
          <dd>{minutesText(data.byState.PENDING.minutes)}</dd>
        </dl>
      ) : null}
    </section>
  );
}

function PullRequests({ path }: { path: TicketPath }) {
  const pulls = useQuery({ refetchInterval: SLOW, queryKey: ['pull-requests', path.ticketId], queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}/pull-requests', { params: { path } })) });
  const rows = pulls.data?.data ?? [];
  if (!pulls.error && rows.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="pulls-heading">
      <h2 id="pulls-heading">Pull requests</h2>
      <ErrorAlert error={pulls.error} />
      <ul className="plain">
        {rows.map((pull) => (
          <li key={pull.id}>
            {/^https:\/\//.test(pull.url) ? (
              <a href={pull.url} rel="noopener noreferrer">
                {pull.repoFullName}#{pull.prNumber}
              </a>
            ) : (
              `${pull.repoFullName}#${pull.prNumber}`
            )}{' '}
            {pull.title} <span className="muted">{pull.state}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Handoffs({ path }: { path: TicketPath }) {
  const handoffs = useQuery({
    refetchInterval: SLOW, queryKey: ['handoffs', path.ticketId, 'all'],
    queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}/handoffs', { params: { path, query: { limit: 20 } } })),
  });
  const rows = handoffs.data?.data ?? [];
  return (
    <section className="panel" aria-labelledby="handoffs-heading">
      <h2 id="handoffs-heading">Handoffs</h2>
      <ErrorAlert error={handoffs.error} />
      {rows.length === 0 ? <p className="muted">No handoff yet.</p> : null}
      <ul className="plain">
        {rows.map((handoff) => (
          <li key={handoff.id} className="handoff">
            <p>
              {handoff.auto ? `Automatic, when ${handoff.from.name}'s lease lapsed` : `From ${handoff.from.name}`}, {ago(handoff.createdAt)}
            </p>
            {handoff.summary ? <p>{handoff.summary}</p> : null}
            {handoff.nextSteps ? <p>Next: {handoff.nextSteps}</p> : null}
            {handoff.lastNote ? (
              <p>
                Last heartbeat note: <q>{handoff.lastNote}</q>
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Comments({ path, mayWriteSecret }: { path: TicketPath; mayWriteSecret: boolean }) {
  const client = useQueryClient();
  const key = ['comments', path.ticketId];
  const comments = useQuery({ queryKey: key, queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}/comments', { params: { path, query: { limit: 100 } } })) });
  const rows = comments.data?.data ?? [];
  const roots = rows.filter((comment) => !comment.parentId);
  const replies = (id: string) => rows.filter((comment) => comment.parentId === id);
  const [replyTo, setReplyTo] = useState<string | undefined>();
  const added = () => {
    setReplyTo(undefined);
    void client.invalidateQueries({ queryKey: key });
  };
  return (
    <section className="panel" aria-labelledby="comments-heading">
      <h2 id="comments-heading">Comments</h2>
      <ErrorAlert error={comments.error} />
      <ul className="plain comments">
        {roots.map((comment) => (
          <li key={comment.id}>
            <CommentBody comment={comment} />
            <ul className="plain replies">
              {replies(comment.id).map((reply) => (
                <li key={reply.id}>
                  <CommentBody comment={reply} />
                </li>
              ))}
            </ul>
            {replyTo === comment.id ? (
              <CommentForm path={path} parentId={comment.id} mayWriteSecret={mayWriteSecret} onAdded={added} onCancel={() => setReplyTo(undefined)} />
            ) : (
              <button type="button" className="link" aria-label={`Reply to ${comment.author.name}`} onClick={() => setReplyTo(comment.id)}>
                Reply
              </button>
            )}
          </li>
        ))}
      </ul>
      <CommentForm path={path} mayWriteSecret={mayWriteSecret} onAdded={added} />
    </section>
  );
}

function CommentBody({ comment }: { comment: Schemas['Comment'] }) {
  return (
    <article className={comment.isSecret ? 'comment secret' : 'comment'}>
      <p className="muted">
        {comment.author.name}, {ago(comment.createdAt)}
        {comment.isSecret ? <strong className="tag"> Secret</strong> : null}
      </p>
      <MarkdownText text={comment.content} />
    </article>
  );
}

function CommentForm({ path, parentId, mayWriteSecret, onAdded, onCancel }: { path: TicketPath; parentId?: string; mayWriteSecret: boolean; onAdded: () => void; onCancel?: () => void }) {
  const id = useId();
  const [content, setContent] = useState('');
  const [secret, setSecret] = useState(false);
  const add = useMutation({
    mutationFn: async () =>
      must(await api.POST('/api/v1/boards/{boardId}/tickets/{ticketId}/comments', { params: { path }, body: { content, ...(secret ? { isSecret: true } : {}), ...(parentId ? { parentId } : {}) } })),
    onSuccess: () => {
      setContent('');
      setSecret(false);
      onAdded();
    },
  });
  return (
    <form
      className="comment-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (content.trim()) add.mutate();
      }}
    >
      <label htmlFor={id}>{parentId ? 'Reply' : 'Comment'}</label>
      <textarea id={id} rows={3} value={content} required onChange={(event) => setContent(event.target.value)} />
      {mayWriteSecret ? (
        <label className="check">
          <input type="checkbox" checked={secret} onChange={(event) => setSecret(event.target.checked)} /> Secret: only the organization&apos;s people and agents see it
        </label>
      ) : null}
      <ErrorAlert error={add.error} />
      <span className="actions">
        <button type="submit" className="primary" disabled={add.isPending}>
          {parentId ? 'Send reply' : 'Add comment'}
        </button>
        {onCancel ? (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </span>
    </form>
  );
}

const KIND_WORDS: Record<Schemas['TimelineEntry']['kind'], string> = {
  CREATED: 'created the ticket',
  STATUS_CHANGED: 'changed the status',
  ASSIGNED: 'changed the assignee',
  MOVED: 'moved the ticket to another board',
  CONVERTED_TO_SUBTICKET: 'made it a subticket',
  PROMOTED_TO_STANDALONE: 'made it a standalone ticket',
  CLAIMED: 'claimed it',
  CLAIM_RELEASED: 'released the claim',
  CLAIM_EXPIRED: 'let the lease lapse',
  REPORTED: 'reported on it',
  HANDOFF: 'handed it over',
  DEPENDENCY_ADDED: 'added a dependency',
  DEPENDENCY_REMOVED: 'removed a dependency',
  UNBLOCKED: 'unblocked it',
  TIME_LOGGED: 'logged time',
  TIME_UPDATED: 'changed logged time',
  TIME_DELETED: 'deleted logged time',
  TIME_APPROVED: 'approved time',
  TIME_REJECTED: 'rejected time',
  CLAIM_DIRECTIVE: "directed the lease's holder",
  CLAIM_MESSAGE: "wrote to the lease's holder",
  QUARANTINED: 'quarantined it after lapsed leases',
  QUARANTINE_LIFTED: 'returned it to the queue',
};

/** A timeline entry's details as short text, without ids (values the API returns, shown as text only). */
function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    // Ids mean nothing to a person; the names beside them say the same.
    .filter(([name, value]) => !/Id$/.test(name) && value !== null && value !== undefined && typeof value !== 'object')
    .slice(0, 4)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join(' · ');
}

function Timeline({ path }: { path: TicketPath }) {
  const timeline = useQuery({
    refetchInterval: SLOW, queryKey: ['timeline', path.ticketId],
    queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}/timeline', { params: { path, query: { limit: 50 } } })),
  });
  const rows = timeline.data?.data ?? [];
  return (
    <section className="panel" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <ErrorAlert error={timeline.error} />
      <ol className="plain timeline">
        {rows.map((entry) => (
          <li key={entry.id}>
            <span className="muted">{ago(entry.createdAt)}</span> {entry.actor?.name ?? 'The service'} {KIND_WORDS[entry.kind] ?? entry.kind.toLowerCase()}
            {detailsText(entry.details) ? <span className="muted"> ({detailsText(entry.details)})</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
