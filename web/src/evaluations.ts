/** Evaluations: the runs of `faultline eval`, each with its accuracy table and a chart. */
import type { EvaluationSummary, Estimate, SummaryRow } from './api.js';
import { element, table } from './dom.js';

const cell = (estimate: Estimate) =>
  `${(estimate.value * 100).toFixed(1)}% [${(estimate.low * 100).toFixed(1)}, ${(estimate.high * 100).toFixed(1)}]`;

const rowLabel = (row: SummaryRow) =>
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

/** One evaluation run: chart and table. */
export function renderEvaluation(
  container: HTMLElement,
  title: string,
  summary: EvaluationSummary,
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
  );
}
