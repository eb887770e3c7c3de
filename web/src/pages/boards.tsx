import { type InfiniteData, type QueryClient, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type DragEvent, type FormEvent, useEffect, useState } from 'react';
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

/** The board's filters; empty strings are "any". */
export interface BoardFilters {
  assigneeId: string;
  labelId: string;
  typeId: string;
  priority: string;
  search: string;
  ready: boolean;
}
const NO_FILTERS: BoardFilters = { assigneeId: '', labelId: '', typeId: '', priority: '', search: '', ready: false };

/** Cards per page of a column: a board of any size opens with at most this many per column. */
const COLUMN_PAGE = 100;

/**
 * One page of a column: the board's list filtered to the status (and the filters), or, for
 * `Ready` only, the ready list of this board and status (GET /issues?ready=true), in queue order.
 */
async function loadColumn(boardId: string, statusId: string, filters: BoardFilters, page: number) {
  const query = {
    statusId,
    page,
    limit: COLUMN_PAGE,
    ...(filters.assigneeId ? { assigneeId: filters.assigneeId } : {}),
    ...(filters.labelId ? { labelId: filters.labelId } : {}),
    ...(filters.typeId ? { typeId: filters.typeId } : {}),
    ...(filters.priority ? { priority: filters.priority } : {}),
    ...(filters.search ? { search: filters.search } : {}),
  };
  if (filters.ready) return must(await api.GET('/api/v1/issues', { params: { query: { ...query, boardId, ready: 'true' } } }));
  return must(await api.GET('/api/v1/boards/{boardId}/tickets', { params: { path: { boardId }, query: { ...query, includePlanning: 'true' } } }));
}
type ColumnPage = Awaited<ReturnType<typeof loadColumn>>;
type Card = ColumnPage['data'][number];
interface Column {
  id: string;
  name: string;
}

/** The cards a column shows now (every page loaded), from whichever filtered query holds them. */
function loadedCards(client: QueryClient, boardId: string, statusId: string): Card[] {
  const [, data] = client.getQueriesData<InfiniteData<ColumnPage>>({ queryKey: ['board-tickets', boardId, statusId] })[0] ?? [];
  return data?.pages.flatMap((page) => page.data) ?? [];
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

/** A value that settles 300 ms after the last change (the search box asks once typing pauses). */
function useSettled<T>(value: T): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), 300);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
}

function FilterBar({ filters, onChange }: { filters: BoardFilters; onChange: (filters: BoardFilters) => void }) {
  const users = useQuery({ queryKey: ['users'], queryFn: async () => must(await api.GET('/api/v1/users', { params: { query: { limit: 100 } } })) });
  const labels = useQuery({ queryKey: ['labels'], queryFn: async () => must(await api.GET('/api/v1/labels')) });
  const types = useQuery({ queryKey: ['ticket-types'], queryFn: async () => must(await api.GET('/api/v1/ticket-types')) });
  const set = (change: Partial<BoardFilters>) => onChange({ ...filters, ...change });
  const select = (label: string, field: 'assigneeId' | 'labelId' | 'typeId' | 'priority', options: { id: string; name: string }[]) => (
    <label className="filter">
      {label}
      <select value={filters[field]} onChange={(event) => set({ [field]: event.target.value })}>
        <option value="">Any</option>
        {options.map((option) => (
          <option key={option.id} value={option.id}>
            {option.name}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <search className="filters" aria-label="Filter the board">
      <label className="filter">
        Search
        <input type="search" value={filters.search} maxLength={200} onChange={(event) => set({ search: event.target.value })} />
      </label>
      {select('Assignee', 'assigneeId', (users.data?.data ?? []).filter((user) => user.isActive).map((user) => ({ id: user.id, name: user.name })))}
      {select('Label', 'labelId', (labels.data?.data ?? []).map((label) => ({ id: label.id, name: label.name })))}
      {select('Type', 'typeId', (types.data?.data ?? []).map((type) => ({ id: type.id, name: type.name })))}
      {select('Priority', 'priority', ['low', 'medium', 'high', 'critical'].map((priority) => ({ id: priority, name: priority })))}
      <label className="filter check">
        <input type="checkbox" checked={filters.ready} onChange={(event) => set({ ready: event.target.checked })} /> Ready only
      </label>
      {JSON.stringify(filters) !== JSON.stringify(NO_FILTERS) ? (
        <button type="button" className="secondary" onClick={() => onChange(NO_FILTERS)}>
          Clear filters
        </button>
      ) : null}
    </search>
  );
}

export function BoardPage({ boardId }: { boardId: string }) {
  const client = useQueryClient();
  const board = useQuery({ queryKey: ['board', boardId], queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}', { params: { path: { boardId } } })) });
  const statuses = useQuery({ queryKey: ['board-statuses', boardId], queryFn: async () => must(await api.GET('/api/v1/boards/{boardId}/statuses', { params: { path: { boardId } } })) });
  const columns: Column[] = (statuses.data?.data ?? []).filter((status) => status.enabled).map((status) => ({ id: status.id, name: status.name }));
  const [refusal, setRefusal] = useState<string | undefined>();
  const move = useMutation({
    mutationFn: async ({ card, target }: { card: Card; target: Target }) => {
      const position = positionFor(loadedCards(client, boardId, target.statusId), card.id, target.beforeId);
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
  const [typed, setFilters] = useState<BoardFilters>(NO_FILTERS);
  const filters = { ...typed, search: useSettled(typed.search).trim() };
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
      <FilterBar filters={typed} onChange={setFilters} />
      <p role="alert" className="error">
        {refusal ?? ''}
      </p>
      <div className="columns">
        {columns.map((column) => (
          <BoardColumn
            key={column.id}
            boardId={boardId}
            column={column}
            columns={columns}
            filters={filters}
            onDragCard={setDragged}
            onDrop={drop}
            onMove={(card, target) => move.mutate({ card, target })}
          />
        ))}
      </div>
    </section>
  );
}

interface ColumnProps {
  boardId: string;
  column: Column;
  filters: BoardFilters;
  columns: Column[];
  onDragCard: (card: Card) => void;
  onDrop: (target: Target) => void;
  onMove: (card: Card, target: Target) => void;
}

/** A column: its first page of cards, then `Show more` for each further page. */
function BoardColumn({ boardId, column, columns, filters, onDragCard, onDrop, onMove }: ColumnProps) {
  const tickets = useInfiniteQuery({
    queryKey: ['board-tickets', boardId, column.id, filters],
    queryFn: ({ pageParam }) => loadColumn(boardId, column.id, filters, pageParam),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.page * last.pageSize < last.total ? last.page + 1 : undefined),
  });
  const cards = tickets.data?.pages.flatMap((page) => page.data) ?? [];
  const total = tickets.data?.pages[0]?.total;
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
        {column.name} <span className="muted">{total ?? ''}</span>
      </h2>
      <ErrorAlert error={tickets.error} />
      <ul className="cards">
        {cards.map((card) => (
          <BoardCard key={card.id} card={card} column={column} columns={columns} onDragCard={onDragCard} onDrop={onDrop} onMove={onMove} />
        ))}
      </ul>
      {tickets.hasNextPage ? (
        <button type="button" className="secondary more" disabled={tickets.isFetchingNextPage} onClick={() => void tickets.fetchNextPage()} aria-label={`Show more in ${column.name}`}>
          Show more ({cards.length} of {total})
        </button>
      ) : null}
    </section>
  );
}

function BoardCard({ card, column, columns, onDragCard, onDrop, onMove }: Omit<ColumnProps, 'boardId' | 'filters'> & { card: Card }) {
  const [moving, setMoving] = useState(false);
  const [statusId, setStatusId] = useState(column.id);
  const [place, setPlace] = useState<'top' | 'bottom'>('bottom');
  const client = useQueryClient();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const first = loadedCards(client, card.boardId, statusId).find((other) => other.id !== card.id);
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
      <Link to={`/app/boards/${card.boardId}/tickets/${card.id}`} className="card-title">
        <span className="muted">{card.displayId}</span> {card.title}
      </Link>
      {card.isReady ? <span className="marker ready">Ready</span> : null}
      {card.openBlockerCount > 0 ? <span className="marker blocked">Blocked by {card.openBlockerCount}</span> : null}
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
