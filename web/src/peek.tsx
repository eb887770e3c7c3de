import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api, must } from './api';
import { ago, remaining } from './time';
import { ErrorAlert } from './alert';
import { Link } from './router';

export interface PeekTarget {
  boardId: string;
  ticketId: string;
}

/**
 * The peek panel: one ticket beside the list, with its claim, its latest handoff and the last
 * heartbeat note, without leaving the page. Escape or `Close` closes it and returns focus.
 */
export function Peek({ target, onClose }: { target: PeekTarget; onClose: () => void }) {
  const path = { boardId: target.boardId, ticketId: target.ticketId };
  const ticket = useQuery({
    queryKey: ['ticket', target.ticketId],
    // The ticket itself under ['ticket', id], as the ticket page keeps it (one cache entry, one shape).
    queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}', { params: { path } })).data,
  });
  const handoffs = useQuery({
    queryKey: ['handoffs', target.ticketId],
    queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets/{ticketId}/handoffs', { params: { path, query: { limit: 1 } } })),
  });
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  const data = ticket.data;
  const handoff = handoffs.data?.data[0];
  return (
    <aside className="peek" aria-labelledby="peek-title">
      <div className="peek-head">
        <h2 id="peek-title" tabIndex={-1} ref={heading}>
          {data ? `${data.displayId} ${data.title}` : 'Ticket'}
        </h2>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorAlert error={ticket.error} />
      {data ? (
        <dl className="facts">
          <dt>Status</dt>
          <dd>{data.status.name}</dd>
          <dt>Priority</dt>
          <dd>{data.priority}</dd>
          <dt>Assignee</dt>
          <dd>{data.assignee?.name ?? 'nobody'}</dd>
          <dt>Claim</dt>
          <dd>
            {data.claim
              ? `${data.claim.claimedBy.name}, claim ${data.claim.claimCount}, ${remaining(data.claim.claimExpiresAt)}; heartbeat ${ago(data.claim.claimHeartbeatAt)}`
              : 'not claimed'}
          </dd>
        </dl>
      ) : null}
      {data ? (
        <p>
          <Link to={`/app/boards/${data.boardId}/tickets/${data.id}`}>Open {data.displayId}</Link>
        </p>
      ) : null}
      {data?.description ? <p className="description">{data.description}</p> : null}
      <h3>Latest handoff</h3>
      {handoff ? (
        <div className="handoff">
          <p>
            {handoff.auto ? 'Automatic, when the lease lapsed' : `From ${handoff.from.name}`}, {ago(handoff.createdAt)}
          </p>
          {handoff.summary ? <p>{handoff.summary}</p> : null}
          {handoff.lastNote ? (
            <p>
              Last heartbeat note: <q>{handoff.lastNote}</q>
            </p>
          ) : null}
        </div>
      ) : (
        <p className="muted">No handoff yet.</p>
      )}
    </aside>
  );
}
