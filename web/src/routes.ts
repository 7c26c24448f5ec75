/** The page's routes: every trace, analysis, evaluation, task and diff has its own URL. */

/** The task view's path, studying failed run `failed` when given. */
export const taskPath = (task: string, failed?: string) =>
  `/tasks/${encodeURIComponent(task)}${failed ? `?failed=${encodeURIComponent(failed)}` : ''}`;

/** At most this many suspicious steps are read from a URL; the rest are ignored. */
export const MAX_SUSPICIOUS = 50;

/**
 * The steps a URL's `suspicious` query names (`2,4`, most suspicious first): a URL is anyone's
 * input, so only plain step numbers are kept, each once, at most MAX_SUSPICIOUS of them.
 */
export function suspiciousSteps(value: string | null): number[] {
  const steps = new Set<number>();
  // Cut before splitting: a long query is not worth reading to the end.
  for (const part of (value ?? '').slice(0, 1000).split(',')) {
    if (steps.size >= MAX_SUSPICIOUS) break;
    const text = part.trim();
    if (/^\d{1,7}$/.test(text)) steps.add(Number(text));
  }
  return [...steps];
}

/** `path` (a trace's or an analysis's) with `steps` marked suspicious, most suspicious first. */
export const withSuspicious = (path: string, steps: readonly number[]) =>
  steps.length > 0 ? `${path}?suspicious=${steps.slice(0, MAX_SUSPICIOUS).join(',')}` : path;

/** What a path shows. */
export type Route =
  | { tab: 'analyse'; traceId?: string; analysisId?: string; suspicious?: number[] }
  | { tab: 'history' }
  | { tab: 'runs' }
  | { tab: 'task'; task: string; failed?: string }
  | { tab: 'evaluations'; id?: string }
  | { tab: 'diff'; failed: string; passed: string };

/** The route of a path (with its query); anything unknown is the start page. */
export function parseRoute(path: string): Route {
  const [pathname = '', search = ''] = path.split('?');
  const [, first, second] = pathname.split('/').map(decodeURIComponent);
  if (first === 'diff') {
    const parameters = new URLSearchParams(search);
    return {
      tab: 'diff',
      failed: parameters.get('failed') ?? '',
      passed: parameters.get('passed') ?? '',
    };
  }
  if ((first === 'traces' || first === 'analyses') && second) {
    const suspicious = suspiciousSteps(new URLSearchParams(search).get('suspicious'));
    return {
      tab: 'analyse',
      ...(first === 'traces' ? { traceId: second } : { analysisId: second }),
      ...(suspicious.length > 0 ? { suspicious } : {}),
    };
  }
  if (first === 'history') return { tab: 'history' };
  if (first === 'runs') return { tab: 'runs' };
  if (first === 'tasks' && second) {
    const failed = new URLSearchParams(search).get('failed');
    return failed ? { tab: 'task', task: second, failed } : { tab: 'task', task: second };
  }
  if (first === 'evaluations')
    return second ? { tab: 'evaluations', id: second } : { tab: 'evaluations' };
  return { tab: 'analyse' };
}

/** Shows tab `name` and marks its link as the current page (a task's view is under Runs). */
export function switchTab(name: Route['tab']): void {
  const current = name === 'task' ? 'runs' : name;
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    const active = link.dataset.tab === current;
    link.classList.toggle('active', active);
    if (active) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  for (const section of document.querySelectorAll<HTMLElement>('.tab'))
    section.hidden = section.id !== `tab-${name}`;
}

/**
 * Follows links marked `data-route` without a reload (a plain click only), and shows the route
 * of a history entry the reader goes back or forward to.
 */
export function listenForRoutes(
  navigate: (path: string) => void,
  showPath: (path: string) => void,
): void {
  document.addEventListener('click', (event) => {
    const link = (event.target as HTMLElement).closest<HTMLAnchorElement>('a[data-route]');
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    const url = new URL(link.href);
    navigate(url.pathname + url.search);
  });
  window.addEventListener('popstate', () => showPath(location.pathname + location.search));
}
