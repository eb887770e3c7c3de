/**
 * The console's addresses: /app/<page>[/<id>], read from and written to the browser's history.
 * On a shared origin (localhost) the organization's `?org=` is kept on every address, so a
 * reload or a copied link reaches the same organization.
 */
import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';
import { organization } from './session';

const listeners = new Set<() => void>();
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
};

/** The console path (`/app/fleet`) as an address of this origin, with the organization on a shared origin. */
export function href(path: string): string {
  if (!organization.sharedOrigin || !organization.slug) return path;
  const [base, query = ''] = path.split('?');
  const params = new URLSearchParams(query);
  params.set('org', organization.slug);
  return `${base}?${params}`;
}

export function navigate(path: string): void {
  history.pushState(null, '', href(path));
  for (const listener of listeners) listener();
}

/** The current path's segments after /app (`['boards', 'brd_1']`). */
export function useRoute(): string[] {
  const path = useSyncExternalStore(subscribe, () => location.pathname);
  return path.split('/').filter(Boolean).slice(1);
}

/** A link within the console: a real address (opens in a new tab too), navigated in place. */
export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={href(to)} onClick={onClick} {...rest} />;
}
