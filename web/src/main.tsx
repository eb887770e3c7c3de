import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, ChooseOrganization } from './app';
import { locateOrganization, organization, startSession } from './session';
import './styles.css';

/**
 * Every list the console shows is polled every 5 seconds while the page is visible (docs/console.md,
 * "Live"), and refetched when the window regains focus.
 */
const queryClient = new QueryClient({
  defaultOptions: { queries: { refetchInterval: 5000, staleTime: 2000, retry: 1 } },
});

/** Pages for people who are not signed in (pages/public.tsx), loaded only when opened. */
const PUBLIC_PAGES = new Set(['join', 'reset', 'forgot', 'outbox']);

locateOrganization();
const root = createRoot(document.getElementById('root')!);
const page = location.pathname.split('/')[2] ?? '';
if (!organization.slug) {
  root.render(<ChooseOrganization />);
} else if (PUBLIC_PAGES.has(page)) {
  const { PublicPage } = await import('./pages/public');
  root.render(
    <StrictMode>
      <PublicPage page={page} />
    </StrictMode>,
  );
} else {
  await startSession();
  root.render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  );
}
