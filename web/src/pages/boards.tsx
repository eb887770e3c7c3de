import { useQuery } from '@tanstack/react-query';
import { api, must } from '../api';
import { Link } from '../router';
import { remaining } from '../time';

export function BoardsPage() {
  const boards = useQuery({ queryKey: ['boards'], queryFn: async () => must(await api.GET('/api/v1/boards', { params: { query: { limit: 100 } } })) });
  const rows = boards.data?.data ?? [];
  return (
    <section className="page">
      <h1>Boards</h1>
      {boards.error ? <p role="alert">{boards.error.message}</p> : null}
      {boards.isSuccess && rows.length === 0 ? <p className="muted">No boards yet.</p> : null}
      <ul className="rows">
        {rows.map((board) => (
          <li key={board.id} className="row">
            <Link to={`/app/boards/${board.id}`}>{board.name}</Link>
            <span className="muted"> {board.prefix}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A board: one column per status of the board, its tickets as cards (the first 100 of each column). */
export function BoardPage({ boardId }: { boardId: string }) {
  const board = useQuery({ queryKey: ['board', boardId], queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}', { params: { path: { boardId } } })) });
  const statuses = useQuery({ queryKey: ['board-statuses', boardId], queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/statuses', { params: { path: { boardId } } })) });
  return (
    <section className="page">
      <h1>{board.data?.name ?? 'Board'}</h1>
      {board.error ? <p role="alert">{board.error.message}</p> : null}
      <div className="columns">
        {(statuses.data?.data ?? []).map((status) => (
          <Column key={status.id} boardId={boardId} statusId={status.id} name={status.name} />
        ))}
      </div>
    </section>
  );
}

function Column({ boardId, statusId, name }: { boardId: string; statusId: string; name: string }) {
  const tickets = useQuery({
    queryKey: ['board-tickets', boardId, statusId],
    queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/tickets', { params: { path: { boardId }, query: { statusId, limit: 100 } } })),
  });
  const cards = tickets.data?.data ?? [];
  const headingId = `column-${statusId}`;
  return (
    <section className="column" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {name} <span className="muted">{tickets.data?.total ?? ''}</span>
      </h2>
      <ul className="cards">
        {cards.map((ticket) => (
          <li key={ticket.id} className="card">
            <span className="muted">{ticket.displayId}</span> {ticket.title}
            <span className="meta">
              {ticket.priority}
              {ticket.assignee ? ` · ${ticket.assignee.name}` : ''}
              {ticket.claim ? (
                <span className="badge">
                  {' '}
                  {ticket.claim.claimedBy.name}, {remaining(ticket.claim.claimExpiresAt)}
                </span>
              ) : null}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
