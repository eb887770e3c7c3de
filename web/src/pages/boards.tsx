import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type DragEvent, type FormEvent, useState } from 'react';
import { api, must } from '../api';
import { Link } from '../router';
import { remaining } from '../time';
import { ErrorAlert } from '../alert';

export function BoardsPage() {
  const boards = useQuery({ queryKey: ['boards'], queryFn: async () => must(await api.GET('/api/v1/boards', { params: { query: { limit: 100 } } })) });
  const rows = boards.data?.data ?? [];
  return (
    <section className="page">
      <h1>Boards</h1>
      <ErrorAlert error={boards.error} />
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

const loadColumn = async (boardId: string, statusId: string) =>
  must(await api.GET('/api/v1/boards/{boardId}/tickets', { params: { path: { boardId }, query: { statusId, includePlanning: 'true', limit: 100 } } }));
type Card = Awaited<ReturnType<typeof loadColumn>>['data'][number];
interface Column {
  id: string;
  name: string;
}

/** Where a card goes: a column, and the card it goes before (none: the column's end). */
interface Target {
  statusId: string;
  beforeId: string | null;
}

/** A position between the cards around the target (positions are numbers the API keeps; a column is sorted by them). */
function positionFor(cards: Card[], movingId: string, beforeId: string | null): number {
  const others = cards.filter((card) => card.id !== movingId);
  const index = beforeId ? others.findIndex((card) => card.id === beforeId) : -1;
  if (index < 0) return others.length ? others[others.length - 1]!.position + 1024 : 1024;
  const previous = index > 0 ? others[index - 1]!.position : 0;
  return (previous + others[index]!.position) / 2;
}

/**
 * A board: one column per enabled status, its tickets as cards (the first 100 of each column,
 * each column its own query). A card moves by drag and drop, within a column or to another
 * (`PATCH …/tickets/reorder` with a position between its new neighbours and, across columns, the
 * status), or with the keyboard: `Move` opens a form with the column and the place. A move the
 * API refuses (a transition rule, a gated status) shows the API's reason.
 */
export function BoardPage({ boardId }: { boardId: string }) {
  const client = useQueryClient();
  const board = useQuery({ queryKey: ['board', boardId], queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}', { params: { path: { boardId } } })) });
  const statuses = useQuery({ queryKey: ['board-statuses', boardId], queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/statuses', { params: { path: { boardId } } })) });
  const columns: Column[] = (statuses.data?.data ?? []).filter((status) => status.enabled).map((status) => ({ id: status.id, name: status.name }));
  const [refusal, setRefusal] = useState<string | undefined>();
  const move = useMutation({
    mutationFn: async ({ card, target }: { card: Card; target: Target }) => {
      const cards = client.getQueryData<Awaited<ReturnType<typeof loadColumn>>>(['board-tickets', boardId, target.statusId])?.data ?? [];
      const position = positionFor(cards, card.id, target.beforeId);
      return must(
        await api.PATCH('/api/v1/boards/{boardId}/tickets/reorder', {
          params: { path: { boardId } },
          body: { ticketId: card.id, position, ...(target.statusId !== card.status.id ? { statusId: target.statusId } : {}) },
        }),
      );
    },
    onMutate: () => setRefusal(undefined),
    onError: (error, { card }) => setRefusal(`${card.displayId} was not moved: ${error.message}`),
    onSettled: () => void client.invalidateQueries({ queryKey: ['board-tickets', boardId] }),
  });
  const [dragged, setDragged] = useState<Card | undefined>();
  const drop = (target: Target) => {
    if (dragged) move.mutate({ card: dragged, target });
    setDragged(undefined);
  };
  return (
    <section className="page">
      <p>
        <Link to="/app/boards">All boards</Link>
      </p>
      <h1>{board.data?.name ?? 'Board'}</h1>
      <ErrorAlert error={board.error} />
      <p role="alert" className="error">
        {refusal ?? ''}
      </p>
      <div className="columns">
        {columns.map((column) => (
          <BoardColumn key={column.id} boardId={boardId} column={column} columns={columns} onDragCard={setDragged} onDrop={drop} onMove={(card, target) => move.mutate({ card, target })} />
        ))}
      </div>
    </section>
  );
}

interface ColumnProps {
  boardId: string;
  column: Column;
  columns: Column[];
  onDragCard: (card: Card) => void;
  onDrop: (target: Target) => void;
  onMove: (card: Card, target: Target) => void;
}

function BoardColumn({ boardId, column, columns, onDragCard, onDrop, onMove }: ColumnProps) {
  const tickets = useQuery({ queryKey: ['board-tickets', boardId, column.id], queryFn: () => loadColumn(boardId, column.id) });
  const cards = tickets.data?.data ?? [];
  const headingId = `column-${column.id}`;
  const allowDrop = (event: DragEvent) => event.preventDefault();
  return (
    <section
      className="column"
      aria-labelledby={headingId}
      data-status-id={column.id}
      onDragOver={allowDrop}
      onDrop={(event) => {
        event.preventDefault();
        onDrop({ statusId: column.id, beforeId: null });
      }}
    >
      <h2 id={headingId}>
        {column.name} <span className="muted">{tickets.data?.total ?? ''}</span>
      </h2>
      <ul className="cards">
        {cards.map((card) => (
          <BoardCard key={card.id} card={card} column={column} columns={columns} onDragCard={onDragCard} onDrop={onDrop} onMove={onMove} />
        ))}
      </ul>
    </section>
  );
}

function BoardCard({ card, column, columns, onDragCard, onDrop, onMove }: Omit<ColumnProps, 'boardId'> & { card: Card }) {
  const [moving, setMoving] = useState(false);
  const [statusId, setStatusId] = useState(column.id);
  const [place, setPlace] = useState<'top' | 'bottom'>('bottom');
  const client = useQueryClient();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const target = client.getQueryData<Awaited<ReturnType<typeof loadColumn>>>(['board-tickets', card.boardId, statusId])?.data ?? [];
    const first = target.find((other) => other.id !== card.id);
    onMove(card, { statusId, beforeId: place === 'top' && first ? first.id : null });
    setMoving(false);
  };
  return (
    <li
      className="card"
      draggable
      data-ticket-id={card.id}
      onDragStart={(event) => {
        event.dataTransfer.setData('text/plain', card.id);
        event.dataTransfer.effectAllowed = 'move';
        onDragCard(card);
      }}
      onDragOver={(event) => event.preventDefault()}
      onDrop={(event) => {
        event.preventDefault();
        event.stopPropagation();
        onDrop({ statusId: column.id, beforeId: card.id });
      }}
    >
      <span className="muted">{card.displayId}</span> {card.title}
      <span className="meta">
        {card.priority}
        {card.assignee ? ` · ${card.assignee.name}` : ''}
        {card.claim ? (
          <span className="badge">
            {' '}
            · {card.claim.claimedBy.name}, {remaining(card.claim.claimExpiresAt)}
          </span>
        ) : null}
      </span>
      {moving ? (
        <form className="move" onSubmit={submit}>
          <label>
            Column
            <select value={statusId} onChange={(event) => setStatusId(event.target.value)}>
              {columns.map((option) => (
                <option key={option.id} value={option.id}>
                  {option.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Place
            <select value={place} onChange={(event) => setPlace(event.target.value as 'top' | 'bottom')}>
              <option value="top">At the top</option>
              <option value="bottom">At the bottom</option>
            </select>
          </label>
          <span className="actions">
            <button type="submit" className="primary">
              Move here
            </button>
            <button type="button" className="secondary" onClick={() => setMoving(false)}>
              Cancel
            </button>
          </span>
        </form>
      ) : (
        <button type="button" className="link" onClick={() => setMoving(true)} aria-label={`Move ${card.displayId}`}>
          Move
        </button>
      )}
    </li>
  );
}
