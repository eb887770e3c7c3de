import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { api, must, type Schemas } from '../api';
import { can, useMe, usePendingSuggestions, usePendingTime } from '../hooks';
import { Peek, type PeekTarget } from '../peek';
import { ago, minutesText } from '../time';
import { ErrorAlert } from '../alert';

/**
 * The inbox: what needs the person, most pressing first: agents' suggested moves, agent time to
 * approve, tickets needing reassignment, leases that lapsed, and tickets assigned to them. One
 * line per row; `Peek` opens the ticket beside the list.
 */
export function InboxPage() {
  const [peek, setPeek] = useState<PeekTarget | undefined>();
  const close = useCallback(() => setPeek(undefined), []);
  return (
    <div className={peek ? 'with-peek' : undefined}>
      <section className="page">
        <h1>Inbox</h1>
        <Suggestions onPeek={setPeek} />
        <AgentTime />
        <TicketList title="Needing reassignment" query={{ needsReassignment: 'true' }} empty="No ticket needs a new assignee." onPeek={setPeek} />
        <Quarantined onPeek={setPeek} />
        <LapsedLeases onPeek={setPeek} />
        <TicketList title="Assigned to me" query={{ assignedToMe: 'true' }} empty="Nothing is assigned to you." onPeek={setPeek} />
      </section>
      {peek ? <Peek target={peek} onClose={close} /> : null}
    </div>
  );
}

function PeekButton({ target, label, onPeek }: { target: PeekTarget; label: string; onPeek: (target: PeekTarget) => void }) {
  return (
    <button type="button" className="link" onClick={() => onPeek(target)}>
      {label}
    </button>
  );
}

function Suggestions({ onPeek }: { onPeek: (target: PeekTarget) => void }) {
  const pending = usePendingSuggestions();
  const rows = pending.data?.data ?? [];
  return (
    <section aria-labelledby="suggestions-title">
      <h2 id="suggestions-title">Suggested moves ({pending.data?.total ?? 0})</h2>
      <ErrorAlert error={pending.error} />
      {rows.length === 0 && pending.isSuccess ? <p className="muted">No agent is waiting for a decision.</p> : null}
      <ul className="rows">
        {rows.map((suggestion) => (
          <SuggestionRow key={suggestion.id} suggestion={suggestion} onPeek={onPeek} />
        ))}
      </ul>
    </section>
  );
}

function SuggestionRow({ suggestion, onPeek }: { suggestion: Schemas['PendingSuggestion']; onPeek: (target: PeekTarget) => void }) {
  const client = useQueryClient();
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const path = { boardId: suggestion.ticket.boardId, ticketId: suggestion.ticket.id, suggestionId: suggestion.id };
  const decide = useMutation({
    mutationFn: async (decision: 'accept' | 'reject') =>
      decision === 'accept'
        ? must(await api.POST('/api/v1/boards/{boardId}/tickets/{ticketId}/suggestions/{suggestionId}/accept', { params: { path }, body: {} }))
        : must(await api.POST('/api/v1/boards/{boardId}/tickets/{ticketId}/suggestions/{suggestionId}/reject', { params: { path }, body: reason.trim() ? { reason: reason.trim() } : {} })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['suggestions'] });
      void client.invalidateQueries({ queryKey: ['ticket', suggestion.ticket.id] });
    },
  });
  const id = `suggestion-${suggestion.id}`;
  return (
    <li className="row" aria-labelledby={id}>
      <span id={id} className="what">
        <PeekButton target={{ boardId: suggestion.ticket.boardId, ticketId: suggestion.ticket.id }} label={`${suggestion.ticket.displayId} ${suggestion.ticket.title}`} onPeek={onPeek} />
        <span className="muted">
          {' '}
          {suggestion.suggestedBy.name}: {suggestion.fromStatus.name} → {suggestion.toStatus.name}
          {suggestion.reason ? `, “${suggestion.reason}”` : ''} · {ago(suggestion.createdAt)}
        </span>
      </span>
      <span className="actions">
        {rejecting ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              decide.mutate('reject');
            }}
          >
            <label className="visually-hidden" htmlFor={`${id}-reason`}>
              Reason for rejecting
            </label>
            <input id={`${id}-reason`} placeholder="Reason (optional)" maxLength={500} value={reason} onChange={(event) => setReason(event.target.value)} />
            <button type="submit" className="danger" disabled={decide.isPending}>
              Reject
            </button>
            <button type="button" className="secondary" onClick={() => setRejecting(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <>
            <button type="button" className="primary" disabled={decide.isPending} onClick={() => decide.mutate('accept')}>
              Approve
            </button>
            <button type="button" className="secondary" disabled={decide.isPending} onClick={() => setRejecting(true)}>
              Reject
            </button>
          </>
        )}
      </span>
      <ErrorAlert error={decide.error} />
    </li>
  );
}

function AgentTime() {
  const me = useMe();
  const approver = can(me.data?.permissions, 'time-tracking:approve');
  const pending = usePendingTime(approver);
  const client = useQueryClient();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const decide = useMutation({
    mutationFn: async ({ ids, decision }: { ids: string[]; decision: 'approve' | 'reject' }) => {
      for (const entryId of ids) {
        const params = { params: { path: { entryId } } };
        must(decision === 'approve' ? await api.POST('/api/v1/time-tracking/entries/{entryId}/approve', params) : await api.POST('/api/v1/time-tracking/entries/{entryId}/reject', { ...params, body: {} }));
      }
    },
    onSettled: () => {
      setSelected(new Set());
      void client.invalidateQueries({ queryKey: ['time'] });
    },
  });
  if (!approver) return null;
  const rows = pending.data?.data ?? [];
  const toggle = (id: string) => setSelected((now) => (now.has(id) ? new Set([...now].filter((x) => x !== id)) : new Set([...now, id])));
  return (
    <section aria-labelledby="time-title">
      <h2 id="time-title">Agent time to approve ({pending.data?.total ?? 0})</h2>
      {rows.length === 0 && pending.isSuccess ? <p className="muted">No agent time is waiting.</p> : null}
      {rows.length > 1 ? (
        <div className="bulk">
          <button type="button" className="secondary" disabled={selected.size === 0 || decide.isPending} onClick={() => decide.mutate({ ids: [...selected], decision: 'approve' })}>
            Approve selected
          </button>
          <button type="button" className="secondary" disabled={selected.size === 0 || decide.isPending} onClick={() => decide.mutate({ ids: [...selected], decision: 'reject' })}>
            Reject selected
          </button>
        </div>
      ) : null}
      <ul className="rows">
        {rows.map((entry) => {
          const id = `time-${entry.id}`;
          return (
            <li key={entry.id} className="row" aria-labelledby={id}>
              {rows.length > 1 ? <input type="checkbox" aria-label={`Select ${entry.user.name}, ${minutesText(entry.durationMinutes)}`} checked={selected.has(entry.id)} onChange={() => toggle(entry.id)} /> : null}
              <span id={id} className="what">
                {entry.user.name}: {minutesText(entry.durationMinutes)}
                <span className="muted">
                  {' '}
                  on {entry.ticket ? `${entry.ticket.displayId} ${entry.ticket.title}` : (entry.bookingItem?.name ?? 'a deleted item')}
                  {entry.description ? `, “${entry.description}”` : ''}
                </span>
              </span>
              <span className="actions">
                <button type="button" className="primary" disabled={decide.isPending} onClick={() => decide.mutate({ ids: [entry.id], decision: 'approve' })}>
                  Approve
                </button>
                <button type="button" className="secondary" disabled={decide.isPending} onClick={() => decide.mutate({ ids: [entry.id], decision: 'reject' })}>
                  Reject
                </button>
              </span>
            </li>
          );
        })}
      </ul>
      <ErrorAlert error={decide.error} />
    </section>
  );
}

function TicketList({ title, query, empty, onPeek }: { title: string; query: { needsReassignment?: 'true'; assignedToMe?: 'true' }; empty: string; onPeek: (target: PeekTarget) => void }) {
  const tickets = useQuery({
    queryKey: ['issues', query],
    queryFn: async () => must(await api.GET('/api/v1/issues', { params: { query: { ...query, includePlanning: 'true', limit: 50 } } })),
  });
  const rows = tickets.data?.data ?? [];
  const headingId = `list-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>
        {title} ({tickets.data?.total ?? 0})
      </h2>
      {rows.length === 0 && tickets.isSuccess ? <p className="muted">{empty}</p> : null}
      <ul className="rows">
        {rows.map((ticket) => (
          <li key={ticket.id} className="row">
            <span className="what">
              <PeekButton target={{ boardId: ticket.boardId, ticketId: ticket.id }} label={`${ticket.displayId} ${ticket.title}`} onPeek={onPeek} />
              <span className="muted">
                {' '}
                {ticket.status.name}
                {ticket.claim ? ` · claimed by ${ticket.claim.claimedBy.name}` : ''}
              </span>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Tickets out of the ready queue after too many lapsed leases in a row, each with what its last leases handed on. */
function Quarantined({ onPeek }: { onPeek: (target: PeekTarget) => void }) {
  const tickets = useQuery({
    queryKey: ['issues', { quarantined: 'true' }],
    queryFn: async () => must(await api.GET('/api/v1/issues', { params: { query: { quarantined: 'true', includePlanning: 'true', limit: 50 } } })),
  });
  const rows = tickets.data?.data ?? [];
  return (
    <section aria-labelledby="quarantined-title">
      <h2 id="quarantined-title">Quarantined ({tickets.data?.total ?? 0})</h2>
      <ErrorAlert error={tickets.error} />
      {rows.length === 0 && tickets.isSuccess ? <p className="muted">No ticket is quarantined.</p> : null}
      <ul className="rows">
        {rows.map((ticket) => (
          <QuarantinedRow key={ticket.id} ticket={ticket} onPeek={onPeek} />
        ))}
      </ul>
    </section>
  );
}

function QuarantinedRow({ ticket, onPeek }: { ticket: Schemas['Ticket']; onPeek: (target: PeekTarget) => void }) {
  const client = useQueryClient();
  const path = { boardId: ticket.boardId, ticketId: ticket.id };
  const handoffs = useQuery({
    queryKey: ['handoffs', ticket.id],
    queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}/handoffs', { params: { path, query: { limit: 3 } } })),
  });
  const lift = useMutation({
    mutationFn: async () => must(await api.DELETE('/api/v1/boards/{boardId}/tickets/{ticketId}/quarantine', { params: { path } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['issues'] }),
  });
  return (
    <li className="row">
      <span className="what">
        <PeekButton target={path} label={`${ticket.displayId} ${ticket.title}`} onPeek={onPeek} />
        <span className="muted"> · {ticket.quarantine?.lapses} lapsed leases in a row, quarantined {ago(ticket.quarantine?.since ?? null)}</span>
        <ul className="plain handoffs">
          {(handoffs.data?.data ?? []).map((handoff) => (
            <li key={handoff.id}>
              {handoff.from.name}: {handoff.summary ?? handoff.lastNote ?? 'left no note'}
            </li>
          ))}
        </ul>
        <ErrorAlert error={lift.error} />
      </span>
      <span className="actions">
        <button type="button" className="secondary" disabled={lift.isPending} onClick={() => lift.mutate()} aria-label={`Return ${ticket.displayId} to the queue`}>
          Return to queue
        </button>
      </span>
    </li>
  );
}

/** Leases that lapsed (the person's unread notifications of them), each with its automatic handoff in the peek. */
function LapsedLeases({ onPeek }: { onPeek: (target: PeekTarget) => void }) {
  const notifications = useQuery({
    queryKey: ['notifications'],
    queryFn: async () => must(await api.GET('/api/v1/notifications', { params: { query: { limit: 50 } } })),
  });
  const rows = (notifications.data?.data ?? []).filter((n) => n.type === 'TICKET_CLAIM_EXPIRED' && !n.readAt);
  return (
    <section aria-labelledby="lapsed-title">
      <h2 id="lapsed-title">Leases that lapsed ({rows.length})</h2>
      {rows.length === 0 && notifications.isSuccess ? <p className="muted">No lease lapsed.</p> : null}
      <ul className="rows">
        {rows.map((notification) => {
          const data = notification.data as { ticketId?: string; boardId?: string; displayId?: string; title?: string; agentName?: string };
          return (
            <li key={notification.id} className="row">
              <span className="what">
                {data.ticketId && data.boardId ? (
                  <PeekButton target={{ boardId: data.boardId, ticketId: data.ticketId }} label={`${data.displayId ?? ''} ${data.title ?? ''}`.trim()} onPeek={onPeek} />
                ) : (
                  'A ticket'
                )}
                <span className="muted"> · lapsed {ago(notification.createdAt)}</span>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
