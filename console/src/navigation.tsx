// The console's pages are paths under /console (`/console/data/tasks/…`): links change the path
// without reloading the app, and the back button goes back.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** The console's page of `location`, under /console (`/data/tasks`). */
export const route = () => location.pathname.replace(/^\/console/, '').replace(/\/+$/, '') || '/';

export function navigate(to: string): void {
  history.pushState(null, '', `/console${to === '/' ? '' : to}`);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The current page, followed as links and the back button change it. */
export function useRoute(): string {
  const [path, setPath] = useState(route());
  useEffect(() => {
    const follow = () => setPath(route());
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  }, []);
  return path;
}

/** A link to a console page: a real link (opens in a new tab too), followed without a reload. */
export function Link({ to, children, class: className, current }: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  const follow = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={`/console${to === '/' ? '' : to}`} class={className} onClick={follow} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}
