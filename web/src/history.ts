/**
 * History: every stored trace once, with its latest verdict, its label and whether they agree, a
 * page at a time. The filter runs in the server's database over every trace, not just this page.
 */
import type { HistoryRow, TracesResponse } from './api.js';
import { element, labelledAgents, table } from './dom.js';
import { pager } from './pager.js';

/** What the table can ask the page to do. */
export interface HistoryActions {
  navigate(path: string): void;
  remove(id: string): Promise<void>;
  load(page: { q?: string; offset?: number }): Promise<TracesResponse>;
}

const correctText = (row: HistoryRow) => {
  if (!row.correct) return '—';
  const agent = row.correct.agent ? '✓ agent' : '✗ agent';
  return row.correct.step === null ? agent : `${agent}, ${row.correct.step ? '✓' : '✗'} step`;
};

/** One table row. */
function historyLine(
  entry: HistoryRow,
  actions: HistoryActions,
  removed: () => void,
): HTMLTableRowElement {
  const path = entry.latest ? `/analyses/${entry.latest.id}` : `/traces/${entry.id}`;
  const link = element('a', { href: path }, entry.name);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    actions.navigate(path);
  });
  const remove = element(
    'button',
    { type: 'button', 'aria-label': `delete ${entry.name}` },
    'Delete',
  );
  remove.addEventListener('click', () => void actions.remove(entry.id).then(removed));
  const verdict = entry.latest
    ? entry.latest.agent === null
      ? 'none'
      : `${entry.latest.agent} @ ${entry.latest.step}`
    : 'not analysed';
  const label = entry.label
    ? `${labelledAgents(entry.label)}${entry.label.step === undefined ? '' : ` @ ${entry.label.step}`}${entry.label.byUser ? ' (yours)' : ''}`
    : '—';
  const cells = [
    entry.format,
    String(entry.steps),
    entry.latest
      ? `${entry.latest.method}${entry.latest.model ? ` (${entry.latest.model})` : ''}`
      : '—',
    verdict,
    label,
    correctText(entry),
  ];
  return element(
    'tr',
    { class: entry.correct ? (entry.correct.agent ? 'right' : 'wrong') : '' },
    element('td', {}, link),
    ...cells.map((text) => element('td', {}, text)),
    element('td', {}, new Date(entry.createdAt).toLocaleString()),
    element('td', {}, remove),
  );
}

/** Renders the History view and its first page; later pages and filters load in place. */
export async function renderHistory(
  container: HTMLElement,
  actions: HistoryActions,
): Promise<void> {
  const heading = element('h2', {}, 'History');
  const first = await actions.load({});
  if (first.total === 0) {
    container.replaceChildren(heading, element('p', {}, 'No traces yet: load one under Analyse.'));
    return;
  }
  const exportLink = element(
    'a',
    { href: '/api/labels', download: 'faultline-labelled-traces.json', class: 'button' },
    'Export labelled traces',
  );
  const filter = element('input', {
    type: 'search',
    id: 'history-filter',
    placeholder: 'filter by name, format, agent, method…',
    'aria-label': 'filter history',
  });
  const status = element('p', { class: 'meta', role: 'status', id: 'history-status' });
  const body = element('tbody');
  let shown = { q: '', offset: 0 };
  const fill = (page: TracesResponse) => {
    body.replaceChildren(
      ...page.traces.map((entry) => historyLine(entry, actions, () => void load(shown))),
    );
    status.textContent = shown.q
      ? `${page.total} ${page.total === 1 ? 'trace matches' : 'traces match'} “${shown.q}”`
      : `${page.total} ${page.total === 1 ? 'trace' : 'traces'}`;
    paging.show(page, page.traces.length);
  };
  // Pages that arrive out of order (fast typing) are dropped: only the last request is shown.
  let requested = 0;
  const load = async (wanted: { q: string; offset: number }) => {
    requested += 1;
    const ticket = requested;
    const page = await actions.load(wanted);
    if (ticket !== requested) return;
    shown = wanted;
    fill(page);
  };
  const paging = pager('History pages', (offset) => void load({ ...shown, offset }));
  let typing: ReturnType<typeof setTimeout> | undefined;
  filter.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => void load({ q: filter.value.trim(), offset: 0 }), 200);
  });
  container.replaceChildren(
    heading,
    element('div', { class: 'toolbar' }, filter, exportLink),
    status,
    table(
      ['trace', 'format', 'steps', 'method', 'verdict', 'label', 'correct?', 'added', ''],
      body,
    ),
    paging.element,
  );
  fill(first);
}
