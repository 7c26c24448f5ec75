/** Evaluations: the runs of `faultline eval`, each with its accuracy table and a chart. */
import {
  api,
  type EvaluationResponse,
  type EvaluationSortKey,
  type EvaluationsResponse,
  type EvaluationTraceRow,
  type Estimate,
  type SummaryRow,
} from './api.js';
import { element, labelledAgents, table } from './dom.js';
import { pager } from './pager.js';

const cell = (estimate: Estimate) =>
  `${(estimate.value * 100).toFixed(1)}% [${(estimate.low * 100).toFixed(1)}, ${(estimate.high * 100).toFixed(1)}]`;

const rowLabel = (row: Pick<SummaryRow, 'method' | 'useGroundTruth'>) =>
  row.useGroundTruth === undefined
    ? row.method
    : `${row.method} (${row.useGroundTruth ? 'with' : 'without'} GT)`;

/** Horizontal bars of agent and step accuracy per method, one group per subset. */
function chart(rows: readonly SummaryRow[]): HTMLElement {
  const figure = element('figure', { class: 'chart' });
  for (const subset of [...new Set(rows.map((row) => row.subset))]) {
    const group = element('div', { class: 'chart-group' }, element('h3', {}, subset));
    for (const row of rows.filter((item) => item.subset === subset)) {
      const bars = element('div', { class: 'bars' });
      for (const [name, estimate] of [
        ['agent', row.accuracy.agent],
        ['step', row.accuracy.step],
      ] as const) {
        const bar = element('span', { class: `bar ${name}` });
        bar.style.width = `${(estimate.value * 100).toFixed(1)}%`;
        bars.append(
          element(
            'div',
            { class: 'bar-line' },
            bar,
            element('span', { class: 'bar-text' }, `${name} ${(estimate.value * 100).toFixed(1)}%`),
          ),
        );
      }
      group.append(
        element(
          'div',
          { class: `chart-row${row.baseline ? ' baseline' : ''}` },
          element('span', { class: 'chart-label' }, rowLabel(row)),
          bars,
        ),
      );
    }
    figure.append(group);
  }
  figure.append(
    element('figcaption', { class: 'meta' }, 'Agent and step accuracy; baselines in grey.'),
  );
  return figure;
}

const yesNo = (value: boolean | null) => (value === null ? '—' : value ? 'yes' : 'no');

/** The per-trace columns, each with the key the server sorts it by. */
const COLUMNS: {
  name: string;
  key: EvaluationSortKey;
  value: (row: EvaluationTraceRow) => string;
}[] = [
  { name: 'trace', key: 'trace', value: (row) => row.file },
  { name: 'subset', key: 'subset', value: (row) => row.subset },
  { name: 'method', key: 'method', value: (row) => rowLabel(row) },
  {
    name: 'blamed',
    key: 'blamed',
    value: (row) =>
      row.predicted.agent === null ? 'none' : `${row.predicted.agent} @ ${row.predicted.step}`,
  },
  {
    name: 'label',
    key: 'label',
    value: (row) => `${labelledAgents(row.label)} @ ${row.label.step ?? '?'}`,
  },
  { name: 'agent right', key: 'agent', value: (row) => yesNo(row.correct.agent) },
  { name: 'step right', key: 'step', value: (row) => yesNo(row.correct.step) },
];

/** What the per-trace table asks the server for. */
type RowQuery = { offset: number; wrong: boolean; sort?: EvaluationSortKey; order: 'asc' | 'desc' };

/**
 * The per-trace rows, a page at a time: a wrong-only filter and sorting by any column, both run
 * by the server over every row; each row opens its trace.
 */
function traceTable(
  first: EvaluationResponse,
  load: (query: RowQuery) => Promise<EvaluationResponse>,
  open: (index: number) => Promise<void>,
): HTMLElement {
  const status = element('p', { class: 'meta', role: 'status', id: 'evaluation-status' });
  const wrongOnly = element('input', { type: 'checkbox', id: 'wrong-only' });
  const body = element('tbody');
  const head = element('tr');
  let query: RowQuery = { offset: 0, wrong: false, order: 'asc' };
  const fill = (page: EvaluationResponse) => {
    body.replaceChildren(
      ...page.traces.map((row) => {
        const link = element('a', { href: '#' }, row.file.split('/').slice(-2).join('/'));
        link.title = row.file;
        link.addEventListener('click', (event) => {
          event.preventDefault();
          status.textContent = `Opening ${row.file}…`;
          open(row.index).catch((error: unknown) => {
            status.textContent = error instanceof Error ? error.message : String(error);
          });
        });
        const cells = COLUMNS.slice(1).map((column) => {
          const text = column.value(row);
          return element(
            'td',
            { class: text === 'no' ? 'wrong' : text === 'yes' ? 'right' : '' },
            text,
          );
        });
        return element('tr', {}, element('td', {}, link), ...cells);
      }),
    );
    status.textContent = `${page.total} evaluated traces${query.wrong ? ', wrong only' : ''}`;
    paging.show(page, page.traces.length);
  };
  let requested = 0;
  const reload = async (wanted: RowQuery) => {
    requested += 1;
    const ticket = requested;
    const page = await load(wanted);
    if (ticket !== requested) return;
    query = wanted;
    fill(page);
  };
  const paging = pager('Evaluated trace pages', (offset) => void reload({ ...query, offset }));
  COLUMNS.forEach((column, index) => {
    const button = element('button', { type: 'button', class: 'sort' }, column.name);
    button.addEventListener('click', () => {
      const order = query.sort === column.key && query.order === 'asc' ? 'desc' : 'asc';
      for (const cell of head.children) cell.removeAttribute('aria-sort');
      head.children[index]!.setAttribute(
        'aria-sort',
        order === 'desc' ? 'descending' : 'ascending',
      );
      void reload({ ...query, offset: 0, sort: column.key, order });
    });
    head.append(element('th', {}, button));
  });
  wrongOnly.addEventListener(
    'change',
    () => void reload({ ...query, offset: 0, wrong: wrongOnly.checked }),
  );
  fill(first);
  return element(
    'section',
    {},
    element('h3', {}, 'Per trace'),
    element('label', { class: 'inline' }, wrongOnly, 'wrong only'),
    status,
    element('table', { class: 'traces' }, element('thead', {}, head), body),
    paging.element,
  );
}

/** One evaluation run: chart, table, and its evaluated traces a page at a time. */
function renderEvaluation(
  container: HTMLElement,
  first: EvaluationResponse,
  load: (query: RowQuery) => Promise<EvaluationResponse>,
  open: (index: number) => Promise<void>,
): void {
  const { summary, title } = first.evaluation;
  const body = element('tbody');
  for (const row of summary.rows)
    body.append(
      element(
        'tr',
        { class: row.baseline ? 'baseline' : '' },
        element('td', {}, rowLabel(row)),
        element('td', {}, row.subset),
        element('td', {}, String(row.traces)),
        element('td', {}, cell(row.accuracy.agent)),
        element('td', {}, cell(row.accuracy.step)),
        element('td', {}, cell(row.accuracy.stepWithin1)),
        element('td', {}, cell(row.accuracy.stepWithin3)),
      ),
    );
  container.replaceChildren(
    element('h2', {}, title),
    chart(summary.rows),
    table(['method', 'subset', 'n', 'agent', 'step', 'step ±1', 'step ±3'], body),
    first.total > 0 ? traceTable(first, load, open) : '',
  );
}

/** What the Evaluations view asks the page to do. */
export interface EvaluationActions {
  navigate(path: string): Promise<void>;
  /** Opens an evaluated trace as an analysis. */
  open(evaluationId: string, index: number): Promise<void>;
}

/** The Evaluations view: the runs a page at a time, and the one named by `id` below them. */
export async function renderEvaluations(
  container: HTMLElement,
  id: string | undefined,
  actions: EvaluationActions,
): Promise<void> {
  const first = await api.evaluations();
  container.replaceChildren(element('h2', {}, 'Evaluations'));
  if (first.total === 0) {
    container.append(
      element(
        'p',
        {},
        'No evaluation runs yet: run `faultline eval <folder>` and they appear here.',
      ),
    );
    return;
  }
  const list = element('ul');
  const fill = (page: EvaluationsResponse) => {
    list.replaceChildren(
      ...page.evaluations.map((evaluation) => {
        const path = `/evaluations/${evaluation.id}`;
        const link = element(
          'a',
          { href: path },
          `${evaluation.title} · ${evaluation.traces} traces · ${new Date(evaluation.createdAt).toLocaleString()}`,
        );
        link.addEventListener('click', (event) => {
          event.preventDefault();
          void actions.navigate(path);
        });
        return element('li', {}, link);
      }),
    );
    paging.show(page, page.evaluations.length);
  };
  const paging = pager('Evaluation pages', (offset) => void api.evaluations({ offset }).then(fill));
  const detail = element('div');
  container.append(list, paging.element, detail);
  fill(first);
  if (!id) return;
  const load = (query: RowQuery) =>
    api.evaluation(id, {
      offset: query.offset,
      wrong: query.wrong,
      ...(query.sort ? { sort: query.sort, order: query.order } : {}),
    });
  renderEvaluation(detail, await load({ offset: 0, wrong: false, order: 'asc' }), load, (index) =>
    actions.open(id, index),
  );
}
