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

locateOrganization();
const root = createRoot(document.getElementById('root')!);
if (!organization.slug) {
  root.render(<ChooseOrganization />);
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
