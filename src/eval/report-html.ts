/**
 * The evaluation report as one self-contained HTML file: charts drawn as inline SVG (accuracy with
 * intervals per method and subset; histogram of predicted minus true step), the tables, and
 * per-trace rows (filter, sort) linking to the blamed and labelled steps. Every piece of trace text
 * is escaped; the one script is allowed by its hash.
 */
import { createHash } from 'node:crypto';
import type { Trace } from '../trace/model.js';
import { accuracyChart, errorHistogram, reliabilityChart } from './report-html-charts.js';
import { escapeHtml, paperTableHtml, table, td } from './report-html-elements.js';
import { injectedHtml, modesHtml, perTraceRows } from './report-html-sections.js';
import {
  calibrationNotes,
  formatEstimate,
  paperTableCells,
  reportNotes,
} from './report-markdown.js';
import { methodLabel } from './method-label.js';
import { OVERSTATEMENT_HEADINGS, overstatementRows } from './report-calibration.js';
import { methodTotals, type EvalSummary } from './summary.js';

export { reliabilityChart } from './report-html-charts.js';

/**
 * The per-trace table's filter (text, wrong only) and sorting, and opening a trace's details from
 * its link. The report's CSP allows this one script by its hash and nothing else.
 */
const TRACE_TABLE_SCRIPT = `(() => {
  const table = document.getElementById('traces');
  const rows = Array.from(table.tBodies[0].rows);
  const wrongOnly = document.getElementById('wrong-only');
  const filter = document.getElementById('trace-filter');
  const count = document.getElementById('trace-count');
  const apply = () => {
    const needle = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      row.hidden = (wrongOnly.checked && row.dataset.wrong !== '1') ||
        (needle !== '' && !row.textContent.toLowerCase().includes(needle));
      if (!row.hidden) shown += 1;
    }
    count.textContent = shown + ' of ' + rows.length + ' rows';
  };
  wrongOnly.addEventListener('change', apply);
  filter.addEventListener('input', apply);
  Array.from(table.tHead.rows[0].cells).forEach((cell, column) => {
    cell.dataset.sort = '';
    cell.addEventListener('click', () => {
      const descending = cell.dataset.sort === 'ascending';
      for (const other of table.tHead.rows[0].cells) other.dataset.sort = '';
      cell.dataset.sort = descending ? 'descending' : 'ascending';
      const text = (row) => row.cells[column].textContent;
      rows.sort((a, b) => (descending ? -1 : 1) * text(a).localeCompare(text(b), 'en', { numeric: true }));
      table.tBodies[0].append(...rows);
    });
  });
  const openTarget = () => {
    const target = document.getElementById(location.hash.slice(1));
    if (target && target.tagName === 'DETAILS') target.open = true;
  };
  addEventListener('hashchange', openTarget);
  openTarget();
  apply();
})();`;
const TRACE_TABLE_SCRIPT_HASH = `sha256-${createHash('sha256').update(TRACE_TABLE_SCRIPT).digest('base64')}`;

/** The whole HTML report. `traces` supplies the blamed steps' text, looked up by file. */
export function renderHtmlReport(summary: EvalSummary, traces: readonly Trace[]): string {
  const byFile = new Map(traces.map((trace) => [trace.source ?? trace.id, trace]));
  const methodRows = summary.rows;
  const accuracyRows = methodRows.map((row) => [
    td(methodLabel(row.method, row.useGroundTruth)),
    td(row.subset),
    td(String(row.traces)),
    td(formatEstimate(row.accuracy.agent)),
    td(formatEstimate(row.accuracy.step)),
    td(formatEstimate(row.accuracy.stepWithin1)),
    td(formatEstimate(row.accuracy.stepWithin3)),
    td(formatEstimate(row.accuracy.stepLenient), 'lenient'),
  ]);
  const usageRows = methodTotals(methodRows).map((row) => [
    td(methodLabel(row.method, row.useGroundTruth)),
    td(String(row.traces)),
    td(String(row.calls)),
    td(String(row.shortenedCalls)),
    td(String(row.inputTokens)),
    td(String(row.outputTokens)),
    td(row.costUsd.toFixed(4)),
    td(row.millisecondsPerTrace.toFixed(2)),
  ]);

  const { traceRows, details, wrong } = perTraceRows(summary, byFile);

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>faultline evaluation</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '${TRACE_TABLE_SCRIPT_HASH}'">
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px;text-align:left}
th{background:#f3f3f3}.right{color:#0a7a2a}.wrong{color:#b00020}.lenient{color:#777}
pre.step{white-space:pre-wrap;background:#f8f8f8;border-left:3px solid #999;padding:6px;max-height:20em;overflow:auto}
pre.blamed{border-left-color:#dc3912}pre.labelled{border-left-color:#0a7a2a}
details{border-top:1px solid #eee;padding:2px 0}summary{cursor:pointer;font-size:13px}
th[data-sort]{cursor:pointer}th[data-sort]:after{content:' ↕';color:#999}
</style></head><body>
<h1>faultline evaluation</h1>
<p>Generated ${escapeHtml(summary.generatedAt)}.</p>
<ul>${reportNotes(summary)
    .map((note) => `<li>${escapeHtml(note)}</li>`)
    .join('')}</ul>
<h2>Accuracy</h2>
${accuracyChart(methodRows, (row) => row.accuracy.agent, 'Agent-level accuracy (95% interval)')}
${accuracyChart(methodRows, (row) => row.accuracy.step, 'Step-level accuracy (95% interval)')}
${table(['method', 'subset', 'n', 'agent', 'step', 'step ±1', 'step ±3', 'step, lenient (original)'], accuracyRows)}
<h2>In the layout of the Who&amp;When paper</h2>
<p>Agent and step accuracy (%), strict and by the original script's lenient rule, which the published figures used.</p>
${paperTableHtml(paperTableCells(summary.rows))}
<h2>Calibration</h2>
<p>Expected calibration error (ECE) over ten bins: on the dashed diagonal a stated 70% is right 70% of the time.</p>
${calibrationNotes(summary)
  .map((note) => `<p>${escapeHtml(note)}</p>`)
  .join('')}
${overstatementHtml(summary)}
${Object.entries(summary.calibration)
  .map(([label, calibration]) =>
    [
      calibration.agent ? reliabilityChart(`${label}: agent`, calibration.agent) : '',
      calibration.agentSingleCause
        ? reliabilityChart(
            `${label}: agent, runs with one responsible agent`,
            calibration.agentSingleCause,
          )
        : '',
      calibration.step ? reliabilityChart(`${label}: step`, calibration.step) : '',
    ].join(''),
  )
  .join('\n')}
<h2>Predicted minus true step</h2>
${Object.entries(summary.stepErrors)
  .map(([label, counts]) => errorHistogram(label, counts))
  .join('\n')}
${modesHtml(summary)}
${injectedHtml(summary)}
<h2>Usage</h2>
${table(['method', 'traces', 'calls', 'shortened calls', 'input tokens', 'output tokens', 'est. cost (USD)', 'ms per trace'], usageRows)}
<h2>Per-trace predictions</h2>
<p><label><input type="checkbox" id="wrong-only"> wrong only</label> <input type="search" id="trace-filter" placeholder="filter rows" aria-label="filter rows"> <span id="trace-count"></span> (click a header to sort)</p>
${table(['trace', 'subset', 'method', 'predicted', 'label', 'agent', 'step', 'calls', 'tokens in / out', 'cost', 'ms'], traceRows, { id: 'traces', wrong })}
<h2>Blamed and labelled steps</h2>
${details.join('\n')}
<script>${TRACE_TABLE_SCRIPT}</script>
</body></html>
`;
}

/** Per subset: mean stated confidence, how often right, overstatement and ECE; '' without any. */
function overstatementHtml(summary: EvalSummary): string {
  const rows = overstatementRows(summary);
  if (rows.length === 0) return '';
  return `<p>Per subset: overstatement is mean stated confidence − accuracy (above 0 the method claims more than it delivers).</p>${table(
    OVERSTATEMENT_HEADINGS,
    rows.map((cells) => cells.map((cell) => td(cell))),
  )}`;
}
