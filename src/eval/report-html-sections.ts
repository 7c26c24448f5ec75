/** The HTML report's sections built from the records: failure modes, injected faults, per-trace rows. */
import { mastMode } from '../trace/mast.js';
import type { Trace } from '../trace/model.js';
import { agentCorrect, stepCorrect } from './metrics.js';
import { methodLabel } from './method-label.js';
import { clip, escapeHtml, table, td } from './report-html-elements.js';
import { formatEstimate, percentText } from './report-markdown.js';
import { predictionText, spendText, type EvalSummary } from './summary.js';

/** The failure-mode tables, when some run is labelled with modes. */
export function modesHtml(summary: EvalSummary): string {
  const modes = summary.modes;
  if (!modes || modes.rows.length === 0) return '';
  const withPairs = modes.rows.some((row) => row.pairs);
  const overall = modes.rows.map((row) => [
    td(row.method),
    td(String(row.traces)),
    td(formatEstimate(row.micro)),
    td(formatEstimate(row.macro)),
    ...(withPairs ? [td(row.pairs ? formatEstimate(row.pairs) : '–')] : []),
  ]);
  const perMode = modes.rows[0]!.perMode.filter((_, index) =>
    modes.rows.some((row) => row.perMode[index]!.support > 0),
  ).map((mode) => [
    `<td title="${escapeHtml(mastMode(mode.code)?.definition ?? '')}">${escapeHtml(mode.label)}</td>`,
    td(String(mode.support)),
    ...modes.rows.map((row) => {
      const score = row.perMode.find((entry) => entry.code === mode.code)!;
      return td(
        `${percentText(score.precision)} / ${percentText(score.recall)} / ${percentText(score.f1)}`,
      );
    }),
  ]);
  return `<h2>Failure modes (MAST)</h2>
<p>F1 with 95% bootstrap interval over runs; macro-F1 averages the modes some run is labelled with; pairs name the blamed agent with each mode.</p>
${table(['method', 'runs', 'micro-F1', 'macro-F1', ...(withPairs ? ['(agent, mode) pair micro-F1'] : [])], overall)}
${table(['mode', 'runs with it', ...modes.rows.map((row) => `${row.method}: P / R / F1 (%)`)], perMode)}`;
}

/** The per-mode and per-operator table of injected runs, with the sentence saying which method to use. */
export function injectedHtml(summary: EvalSummary): string {
  const injected = summary.injected;
  if (!injected) return '';
  const subsets = [...new Set(injected.rows.map((row) => row.subset))];
  const methods = [
    ...new Set(
      injected.rows.map((row) =>
        row.baseline ? row.method : methodLabel(row.method, row.useGroundTruth),
      ),
    ),
  ];
  const cell = (subset: string, method: string) => {
    const row = injected.rows.find(
      (candidate) =>
        candidate.subset === subset &&
        (candidate.baseline
          ? candidate.method
          : methodLabel(candidate.method, candidate.useGroundTruth)) === method,
    );
    return td(
      row ? `${formatEstimate(row.accuracy.agent)} / ${formatEstimate(row.accuracy.step)}` : '–',
    );
  };
  const body = subsets.map((subset) => [
    td(subset),
    td(String(injected.rows.find((row) => row.subset === subset)?.traces ?? 0)),
    ...methods.map((method) => cell(subset, method)),
  ]);
  return `<h2>Your system: injected faults</h2>
<p class="verdict"><b>${escapeHtml(injected.verdict)}</b></p>
<p>Agent / step accuracy on the runs faultline inject kept, per injected mode and operator.</p>
${table(['injected', 'runs', ...methods], body)}`;
}

/**
 * The per-trace table's rows, each trace's details (the blamed and labelled steps' text) and
 * which rows are wrong, for the report's filter.
 */
export function perTraceRows(
  summary: EvalSummary,
  byFile: ReadonlyMap<string, Trace>,
): { traceRows: string[][]; details: string[]; wrong: boolean[] } {
  const details: string[] = [];
  const wrong: boolean[] = [];
  const traceRows = summary.records.map((record, index) => {
    const anchor = `t${index}`;
    const trace = byFile.get(record.file);
    const blamed = record.predicted.step === null ? undefined : trace?.steps[record.predicted.step];
    const labelled = record.label.step === undefined ? undefined : trace?.steps[record.label.step];
    details.push(
      `<details id="${anchor}"><summary>${escapeHtml(record.file)} — ${escapeHtml(methodLabel(record.method, record.useGroundTruth))}: ${escapeHtml(predictionText(record))}, label ${escapeHtml(`${record.label.agent ?? '?'} @ ${record.label.step ?? '?'}`)}</summary>` +
        `<p><b>Blamed:</b> ${escapeHtml(predictionText(record))}. ${escapeHtml(record.predicted.reason)}</p>` +
        (blamed
          ? `<pre class="step blamed">${escapeHtml(`[${blamed.index}] ${blamed.speaker}\n${clip(blamed.content)}`)}</pre>`
          : '') +
        `<p><b>Label:</b> step ${record.label.step ?? '?'} by ${escapeHtml(record.label.agent ?? '?')}</p>` +
        (labelled && labelled !== blamed
          ? `<pre class="step labelled">${escapeHtml(`[${labelled.index}] ${labelled.speaker}\n${clip(labelled.content)}`)}</pre>`
          : '') +
        '</details>',
    );
    const agentRight = agentCorrect(
      record.predicted.agent,
      record.label.agent,
      record.label.agents,
    );
    const stepRight = stepCorrect(record.predicted.step, record.label.step);
    wrong.push(!agentRight || (record.label.step !== undefined && !stepRight));
    return [
      `<td><a href="#${anchor}">${escapeHtml(record.file)}</a></td>`,
      td(record.subset),
      td(methodLabel(record.method, record.useGroundTruth)),
      `<td><a href="#${anchor}">${escapeHtml(predictionText(record))}</a></td>`,
      td(`${record.label.agent ?? '?'} @ ${record.label.step ?? '?'}`),
      td(agentRight ? 'yes' : 'no', agentRight ? 'right' : 'wrong'),
      td(stepRight ? 'yes' : 'no', stepRight ? 'right' : 'wrong'),
      ...Object.values(spendText(record)).map((text) => td(text)),
    ];
  });
  return { traceRows, details, wrong };
}
