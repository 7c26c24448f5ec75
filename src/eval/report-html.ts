/**
 * The evaluation report as one self-contained HTML file: charts drawn as inline SVG (accuracy with
 * intervals per method and subset; histogram of predicted minus true step), the tables, and
 * per-trace rows (filter, sort) linking to the blamed and labelled steps. Every piece of trace text
 * is escaped; the one script is allowed by its hash.
 */
import { createHash } from 'node:crypto';
import { mastMode } from '../trace/mast.js';
import type { Trace } from '../trace/model.js';
import type { Calibration } from './calibration.js';
import {
  calibrationNotes,
  formatEstimate,
  paperTableCells,
  percentText,
  reportNotes,
} from './report-markdown.js';
import { agentCorrect, stepCorrect, type Estimate } from './metrics.js';
import { methodLabel } from './method-label.js';
import {
  predictionText,
  methodTotals,
  spendText,
  type EvalSummary,
  type SummaryRow,
} from './summary.js';

/** Escapes text for HTML content and attribute values. */
function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const COLOURS = [
  '#3366cc',
  '#dc3912',
  '#ff9900',
  '#109618',
  '#990099',
  '#0099c6',
  '#dd4477',
  '#66aa00',
];

/** Horizontal bars with 95% interval whiskers, one group per subset. */
function accuracyChart(
  rows: readonly SummaryRow[],
  pick: (row: SummaryRow) => Estimate,
  title: string,
): string {
  const labels = [...new Set(rows.map((row) => methodLabel(row.method, row.useGroundTruth)))];
  const subsets = [...new Set(rows.map((row) => row.subset))];
  const barHeight = 14;
  const left = 230;
  const width = 420;
  const groupHeight = labels.length * (barHeight + 3) + 18;
  const height = subsets.length * groupHeight + 40;
  const parts = [
    `<svg role="img" aria-label="${escapeHtml(title)}" width="${left + width + 60}" height="${height}" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="11">`,
  ];
  parts.push(`<text x="0" y="14" font-weight="bold">${escapeHtml(title)}</text>`);
  for (let tick = 0; tick <= 100; tick += 25)
    parts.push(
      `<line x1="${left + (tick / 100) * width}" x2="${left + (tick / 100) * width}" y1="22" y2="${height - 10}" stroke="#ddd"/><text x="${left + (tick / 100) * width - 8}" y="${height}" fill="#666">${tick}%</text>`,
    );
  subsets.forEach((subset, subsetIndex) => {
    const top = 30 + subsetIndex * groupHeight;
    parts.push(`<text x="0" y="${top + 10}" font-weight="bold">${escapeHtml(subset)}</text>`);
    labels.forEach((label, labelIndex) => {
      const row = rows.find(
        (candidate) =>
          candidate.subset === subset &&
          methodLabel(candidate.method, candidate.useGroundTruth) === label,
      );
      if (!row || pick(row).n === 0) return;
      const value = pick(row);
      const y = top + 14 + labelIndex * (barHeight + 3);
      const colour = COLOURS[labelIndex % COLOURS.length]!;
      parts.push(`<text x="10" y="${y + 11}">${escapeHtml(label)}</text>`);
      parts.push(
        `<rect x="${left}" y="${y}" width="${(value.value * width).toFixed(1)}" height="${barHeight}" fill="${colour}" opacity="0.8"><title>${escapeHtml(`${label}, ${subset}: ${formatEstimate(value)}`)}</title></rect>`,
      );
      parts.push(
        `<line x1="${left + value.low * width}" x2="${left + value.high * width}" y1="${y + barHeight / 2}" y2="${y + barHeight / 2}" stroke="#000"/>`,
      );
      parts.push(
        `<text x="${left + Math.max(value.value, value.high) * width + 4}" y="${y + 11}">${(value.value * 100).toFixed(1)}%</text>`,
      );
    });
  });
  parts.push('</svg>');
  return parts.join('');
}

/** A reliability chart: stated confidence against observed accuracy per bin, and the diagonal. */
export function reliabilityChart(title: string, calibration: Calibration): string {
  const size = 180;
  const pad = 30;
  const x = (value: number) => pad + value * size;
  const y = (value: number) => pad + (1 - value) * size;
  // Wide enough for the title (a method label and what is judged; about 6 px a bold character),
  // whose figures get a line of their own.
  const width = Math.max(size + 2 * pad, Math.ceil(title.length * 6) + 10);
  const parts = [
    `<svg role="img" aria-label="${escapeHtml(title)}" width="${width}" height="${size + 2 * pad + 10}" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="10">`,
    `<text x="0" y="11" font-weight="bold">${escapeHtml(title)}</text>`,
    `<text x="0" y="23">${escapeHtml(`ECE ${calibration.ece.toFixed(3)}, ${calibration.count} predictions`)}</text>`,
    `<rect x="${pad}" y="${pad}" width="${size}" height="${size}" fill="none" stroke="#ccc"/>`,
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<text x="${pad}" y="${size + 2 * pad}" fill="#666">stated confidence →</text>`,
    `<text x="2" y="${pad + 8}" fill="#666">right</text>`,
  ];
  const most = Math.max(...calibration.bins.map((bin) => bin.count));
  for (const bin of calibration.bins)
    parts.push(
      `<circle cx="${x(bin.confidence).toFixed(1)}" cy="${y(bin.accuracy).toFixed(1)}" r="${(2 + 6 * Math.sqrt(bin.count / most)).toFixed(1)}" fill="#3366cc" opacity="0.7"><title>${escapeHtml(`${(bin.low * 100).toFixed(0)}–${(bin.high * 100).toFixed(0)}%: ${bin.count} predictions, stated ${(bin.confidence * 100).toFixed(0)}%, right ${(bin.accuracy * 100).toFixed(0)}%`)}</title></circle>`,
    );
  parts.push('</svg>');
  return parts.join('');
}

/** Histogram of predicted − true step for one method. */
function errorHistogram(label: string, counts: Record<string, number>): string {
  const entries = Object.entries(counts).map(
    ([difference, count]) => [Number(difference), count] as const,
  );
  if (entries.length === 0) return '';
  const clamp = (value: number) => Math.max(-10, Math.min(10, value));
  const bins = new Map<number, number>();
  for (const [difference, count] of entries)
    bins.set(clamp(difference), (bins.get(clamp(difference)) ?? 0) + count);
  const max = Math.max(...bins.values());
  const barWidth = 18;
  const height = 120;
  const parts = [
    `<svg role="img" aria-label="${escapeHtml(`predicted minus true step, ${label}`)}" width="${21 * (barWidth + 2) + 20}" height="${height + 40}" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="10">`,
  ];
  parts.push(`<text x="0" y="12" font-weight="bold">${escapeHtml(label)}</text>`);
  for (let difference = -10; difference <= 10; difference += 1) {
    const count = bins.get(difference) ?? 0;
    const x = 10 + (difference + 10) * (barWidth + 2);
    const barHeight = max > 0 ? (count / max) * (height - 30) : 0;
    parts.push(
      `<rect x="${x}" y="${height - barHeight}" width="${barWidth}" height="${barHeight}" fill="${difference === 0 ? '#109618' : '#3366cc'}"><title>${difference === -10 ? '≤ ' : difference === 10 ? '≥ ' : ''}${difference}: ${count}</title></rect>`,
    );
    if (difference % 5 === 0)
      parts.push(
        `<text x="${x + 2}" y="${height + 14}">${difference === -10 ? '≤-10' : difference === 10 ? '≥10' : difference}</text>`,
      );
  }
  parts.push('</svg>');
  return parts.join('');
}

/** The paper-layout cells as an HTML table. */
function paperTableHtml({ head, body }: { head: string[]; body: string[][] }): string {
  return table(
    head,
    body.map((cells) => cells.map((cell) => td(cell))),
  );
}

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

/** A table of cells already made; `wrong` marks rows (data-wrong) for the per-trace filter. */
function table(
  head: string[],
  body: string[][],
  options: { id?: string; wrong?: readonly boolean[] } = {},
): string {
  const rows = body.map(
    (row, index) => `<tr${options.wrong?.[index] ? ' data-wrong="1"' : ''}>${row.join('')}</tr>`,
  );
  return `<table${options.id ? ` id="${options.id}"` : ''}><thead><tr>${head.map((cell) => `<th>${escapeHtml(cell)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const td = (text: string, className = '') =>
  `<td${className ? ` class="${className}"` : ''}>${escapeHtml(text)}</td>`;

function clip(text: string, limit = 2000): string {
  return text.length > limit
    ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)`
    : text;
}

/** The failure-mode tables, when some run is labelled with modes. */
function modesHtml(summary: EvalSummary): string {
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
function injectedHtml(summary: EvalSummary): string {
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
