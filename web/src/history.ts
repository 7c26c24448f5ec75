/** History: every stored trace once, with its latest verdict, its label and whether they agree. */
import type { HistoryRow } from './api.js';
import { element, labelledAgents, table } from './dom.js';

/** What the table can ask the page to do. */
export interface HistoryActions {
  navigate(path: string): void;
  remove(id: string): Promise<void>;
}

const correctText = (row: HistoryRow) => {
  if (!row.correct) return '—';
  const agent = row.correct.agent ? '✓ agent' : '✗ agent';
  return row.correct.step === null ? agent : `${agent}, ${row.correct.step ? '✓' : '✗'} step`;
};

/** Renders the table with a text filter over every column. */
export function renderHistory(
  container: HTMLElement,
  rows: HistoryRow[],
  actions: HistoryActions,
): void {
  container.replaceChildren();
  const heading = element('h2', {}, 'History');
  const exportLink = element(
    'a',
    { href: '/api/labels', download: 'faultline-labelled-traces.json', class: 'button' },
    'Export labelled traces',
  );
  if (rows.length === 0) {
    container.append(heading, element('p', {}, 'No traces yet: load one under Analyse.'));
    return;
  }
  const filter = element('input', {
    type: 'search',
    id: 'history-filter',
    placeholder: 'filter by name, format, agent, method…',
    'aria-label': 'filter history',
  });
  const body = element('tbody');
  const lines: { row: HTMLTableRowElement; text: string }[] = [];
  for (const entry of rows) {
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
    remove.addEventListener('click', () => void actions.remove(entry.id));
    const verdict = entry.latest
      ? entry.latest.agent === null
        ? 'none'
        : `${entry.latest.agent} @ ${entry.latest.step}`
      : 'not analysed';
    const label = entry.label
      ? `${labelledAgents(entry.label)} @ ${entry.label.step ?? '?'}${entry.label.byUser ? ' (yours)' : ''}`
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
    const row = element(
      'tr',
      { class: entry.correct ? (entry.correct.agent ? 'right' : 'wrong') : '' },
      element('td', {}, link),
      ...cells.map((text) => element('td', {}, text)),
      element('td', {}, new Date(entry.createdAt).toLocaleString()),
      element('td', {}, remove),
    );
    lines.push({ row, text: [entry.name, ...cells].join(' ').toLowerCase() });
    body.append(row);
  }
  filter.addEventListener('input', () => {
    const needle = filter.value.trim().toLowerCase();
    for (const { row, text } of lines) row.hidden = needle !== '' && !text.includes(needle);
  });
  container.append(
    heading,
    element('div', { class: 'toolbar' }, filter, exportLink),
    table(
      ['trace', 'format', 'steps', 'method', 'verdict', 'label', 'correct?', 'added', ''],
      body,
    ),
  );
}
