/** Evaluations: the runs of `faultline eval`, each with its accuracy table and a chart. */
import type { EvaluationSummary, EvaluationTraceRow, Estimate, SummaryRow } from './api.js';
import { element, labelledAgents, table } from './dom.js';

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

/** The per-trace rows: a wrong-only filter, sorting by any column, each row opening its trace. */
function traceTable(
  rows: readonly EvaluationTraceRow[],
  open: (index: number) => Promise<void>,
): HTMLElement {
  const columns: { name: string; value: (row: EvaluationTraceRow) => string | number }[] = [
    { name: 'trace', value: (row) => row.file },
    { name: 'subset', value: (row) => row.subset },
    { name: 'method', value: (row) => rowLabel(row) },
    {
      name: 'blamed',
      value: (row) =>
        row.predicted.agent === null ? 'none' : `${row.predicted.agent} @ ${row.predicted.step}`,
    },
    {
      name: 'label',
      value: (row) => `${labelledAgents(row.label)} @ ${row.label.step ?? '?'}`,
    },
    { name: 'agent right', value: (row) => yesNo(row.correct.agent) },
    { name: 'step right', value: (row) => yesNo(row.correct.step) },
  ];
  const status = element('p', { class: 'meta', role: 'status' });
  const wrongOnly = element('input', { type: 'checkbox', id: 'wrong-only' });
  const body = element('tbody');
  const head = element('tr');
  let order = { column: -1, descending: false };
  const draw = () => {
    let shown = rows.filter(
      (row) => !wrongOnly.checked || row.correct.agent === false || row.correct.step === false,
    );
    if (order.column >= 0) {
      const value = columns[order.column]!.value;
      shown = [...shown].sort((left, right) => {
        const compared = String(value(left)).localeCompare(String(value(right)), 'en', {
          numeric: true,
        });
        return order.descending ? -compared : compared;
      });
    }
    body.replaceChildren(
      ...shown.map((row) => {
        const link = element('a', { href: '#' }, row.file.split('/').slice(-2).join('/'));
        link.title = row.file;
        link.addEventListener('click', (event) => {
          event.preventDefault();
          status.textContent = `Opening ${row.file}…`;
          open(row.index).catch((error: unknown) => {
            status.textContent = error instanceof Error ? error.message : String(error);
          });
        });
        const cells = columns.slice(1).map((column) => {
          const text = String(column.value(row));
          return element(
            'td',
            { class: text === 'no' ? 'wrong' : text === 'yes' ? 'right' : '' },
            text,
          );
        });
        return element('tr', {}, element('td', {}, link), ...cells);
      }),
    );
    status.textContent = `${shown.length} of ${rows.length} evaluated traces`;
  };
  columns.forEach((column, index) => {
    const button = element('button', { type: 'button', class: 'sort' }, column.name);
    button.addEventListener('click', () => {
      order = { column: index, descending: order.column === index && !order.descending };
      for (const cell of head.children) cell.removeAttribute('aria-sort');
      head.children[index]!.setAttribute(
        'aria-sort',
        order.descending ? 'descending' : 'ascending',
      );
      draw();
    });
    head.append(element('th', {}, button));
  });
  wrongOnly.addEventListener('change', draw);
  draw();
  return element(
    'section',
    {},
    element('h3', {}, 'Per trace'),
    element('label', { class: 'inline' }, wrongOnly, 'wrong only'),
    status,
    element('table', { class: 'traces' }, element('thead', {}, head), body),
  );
}

/** One evaluation run: chart and table. */
export function renderEvaluation(
  container: HTMLElement,
  title: string,
  summary: EvaluationSummary,
  traces: readonly EvaluationTraceRow[],
  open: (index: number) => Promise<void>,
): void {
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
    traces.length > 0 ? traceTable(traces, open) : '',
  );
}
