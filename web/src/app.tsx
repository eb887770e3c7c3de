import { type FormEvent, lazy, Suspense, useState } from 'react';
import { PageBoundary } from './alert';
import { can, useMe, usePendingSuggestions, usePendingTime } from './hooks';
import { AgentPage, AgentsPage } from './pages/agents';
import { BoardPage, BoardsPage } from './pages/boards';
import { FleetPage } from './pages/fleet';
import { InboxPage } from './pages/inbox';
import { PeoplePage } from './pages/people';
import { Link, useRoute } from './router';
import { signOut } from './session';

/** The ticket page (and its Markdown renderer) loads when first opened, keeping the first load small. */
const TicketPage = lazy(() => import('./pages/ticket').then((module) => ({ default: module.TicketPage })));

const PAGES = [
  { path: 'inbox', name: 'Inbox' },
  { path: 'fleet', name: 'Fleet' },
  { path: 'boards', name: 'Boards' },
  { path: 'agents', name: 'Agents' },
  { path: 'people', name: 'People' },
] as const;

/** The number of things waiting for the person: suggested moves and agent time to approve. */
function useInboxCount(): number {
  const me = useMe();
  const suggestions = usePendingSuggestions();
  const time = usePendingTime(can(me.data?.permissions, 'time-tracking:approve'));
  return (suggestions.data?.total ?? 0) + (time.data?.total ?? 0);
}

export function App() {
  const [page = 'inbox', id, item, itemId] = useRoute();
  const me = useMe();
  const inboxCount = useInboxCount();
  const [signingOut, setSigningOut] = useState(false);
  const current = PAGES.find((entry) => entry.path === page);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="org">{me.data?.organization.name ?? ' '}</span>
        <nav aria-label="Console">
          <ul>
            {PAGES.map((entry) => (
              <li key={entry.path}>
                <Link to={`/app/${entry.path}`} aria-current={entry.path === page ? 'page' : undefined}>
                  {entry.name}
                  {entry.path === 'inbox' && inboxCount > 0 ? (
                    <span className="count">
                      {' '}
                      {inboxCount}
                      <span className="visually-hidden"> waiting</span>
                    </span>
                  ) : null}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">{me.data?.name}</span>
        <button
          type="button"
          className="secondary"
          disabled={signingOut}
          onClick={() => {
            setSigningOut(true);
            void signOut();
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main">
        <PageBoundary resetKey={[page, id, item, itemId].join('/')}>
          {!current ? (
            <NotFound />
          ) : page === 'inbox' ? (
            <InboxPage />
          ) : page === 'fleet' ? (
            <FleetPage />
          ) : page === 'boards' ? (
            id && item === 'tickets' && itemId ? (
              <Suspense fallback={<p className="muted">Loading the ticket…</p>}>
                <TicketPage key={itemId} boardId={id} ticketId={itemId} />
              </Suspense>
            ) : id ? <BoardPage boardId={id} /> : <BoardsPage />
          ) : page === 'agents' ? (
            id ? <AgentPage agentId={id} /> : <AgentsPage />
          ) : (
            <PeoplePage />
          )}
        </PageBoundary>
      </main>
    </>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no such page. <Link to="/app/inbox">Go to the inbox</Link>.
      </p>
    </section>
  );
}

/** On a shared origin with no organization named: which one (its slug), then the console for it. */
export function ChooseOrganization() {
  const [slug, setSlug] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    location.assign(`/app?org=${encodeURIComponent(slug.trim().toLowerCase())}`);
  };
  return (
    <main id="main" className="narrow">
      <h1>Which organization?</h1>
      <form onSubmit={submit}>
        <label htmlFor="org">Organization</label>
        <input id="org" name="org" required pattern="[a-z0-9][a-z0-9\-]*" autoComplete="organization" value={slug} onChange={(event) => setSlug(event.target.value)} />
        <p className="muted">Its short name, as in acme.example.com.</p>
        <button type="submit" className="primary">
          Continue
        </button>
      </form>
    </main>
  );
}
