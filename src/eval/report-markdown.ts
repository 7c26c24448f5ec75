/**
 * The evaluation report as Markdown (also what the terminal shows). The JSON report carries the
 * same numbers; the HTML report adds charts.
 */
import { PAPER_PROMPTS_TAG } from './constants.js';
import { agentCorrect, stepCorrect, type Estimate } from './metrics.js';
import { methodLabel } from './method-label.js';
import {
  predictionText,
  methodTotals,
  spendText,
  type EvalSummary,
  type SummaryRow,
} from './summary.js';
import { calibrationTable, overstatementTable, reliabilitySection } from './report-calibration.js';

export {
  calibrationNotes,
  calibrationTable,
  methodReliabilityTable,
  reliabilityTable,
  type ReliabilityLine,
} from './report-calibration.js';

/**
 * Text safe inside a Markdown table cell: pipes escaped, and each run of whitespace that holds a
 * line break made one space (matched run by run: `\s*\n\s*` backtracks quadratically on long
 * runs of spaces, such as a model's reply can hold).
 */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run));
}

/** `42.1% [32.9, 51.6]`, or `–` when no trace could be scored (no step labels, say). */
export function formatEstimate(value: Estimate): string {
  if (value.n === 0) return '–';
  return `${(value.value * 100).toFixed(1)}% [${(value.low * 100).toFixed(1)}, ${(value.high * 100).toFixed(1)}]`;
}

/** Notes that must travel with the numbers. */
export function reportNotes(summary: EvalSummary): string[] {
  const notes =
    summary.rows.length === 0
      ? []
      : [
          'Accuracy with 95% bootstrap interval over traces. Steps match only when the integers are equal; step measures count only traces with a step label (– where none has one). Where a run has several responsible agents (injected faults), naming any of them is right.',
          '"lenient (original)" repeats the original Who&When script, which counts a step as right when the true number occurs inside the predicted one (true 1, predicted 10 counts); it is shown only to compare with published figures.',
        ];
  if (summary.info.includeTrain)
    notes.push(
      '--include-train: the offline model is scored on traces it was trained on; its figures are optimistic.',
    );
  else if (summary.info.excludedTrainingTraces > 0)
    notes.push(
      `${summary.info.excludedTrainingTraces} trace(s) the offline model was trained on were left out of its evaluation (use offline-cv to cross-validate on them, or --include-train).`,
    );
  for (const row of methodTotals(summary.rows))
    if (row.shortenedCalls > 0)
      notes.push(
        `${methodLabel(row.method, row.useGroundTruth)}: ${row.shortenedCalls} of ${row.calls} calls had their log shortened to fit the model's context (each record keeps its warning).`,
      );
  if (summary.info.unlabelled > 0)
    notes.push(
      `${summary.info.unlabelled} trace(s) without agent and step labels were skipped${summary.modes ? ' for agent and step accuracy' : ''}.`,
    );
  return notes;
}

/** The main table: every method and baseline, per subset. */
function accuracyTable(rows: readonly SummaryRow[]): string {
  const lines = [
    '| method | subset | n | agent | step | step ±1 | step ±3 | step, lenient (original) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const { accuracy } = row;
    lines.push(
      `| ${methodLabel(row.method, row.useGroundTruth)} | ${row.subset} | ${row.traces} | ${formatEstimate(accuracy.agent)} | ${formatEstimate(accuracy.step)} | ${formatEstimate(accuracy.stepWithin1)} | ${formatEstimate(accuracy.stepWithin3)} | ${formatEstimate(accuracy.stepLenient)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The Who&When paper's layout as cells: methods × ground truth as rows, each subset's agent
 * accuracy and step accuracy, strict and by the original script's lenient rule (which the
 * published figures used), as columns; baselines once, after the methods.
 */
export function paperTableCells(rows: readonly SummaryRow[]): {
  head: string[];
  body: string[][];
} {
  const subsets = [...new Set(rows.map((row) => row.subset))].filter(
    (subset) => subset !== 'overall',
  );
  const methods = rows.filter((row) => !row.baseline);
  const baselines = rows.filter((row) => row.baseline);
  const labels = [
    ...new Set(methods.map((row) => methodLabel(row.method, row.useGroundTruth))),
    ...new Set(baselines.map((row) => row.method)),
  ];
  const percent = (value: Estimate) => (value.n === 0 ? '–' : (value.value * 100).toFixed(1));
  const head = [
    'method',
    ...subsets.flatMap((subset) => [
      `${subset} agent`,
      `${subset} step`,
      `${subset} step, lenient`,
    ]),
  ];
  const body = labels.map((label) => [
    label,
    ...subsets.flatMap((subset) => {
      const row = rows.find(
        (candidate) =>
          methodLabel(candidate.method, candidate.useGroundTruth) === label &&
          candidate.subset === subset,
      );
      return row
        ? [
            percent(row.accuracy.agent),
            percent(row.accuracy.step),
            percent(row.accuracy.stepLenient),
          ]
        : ['–', '–', '–'];
    }),
  ]);
  return { head, body };
}

/** The Who&When paper's layout (paperTableCells) as a Markdown table. */
function paperTable(rows: readonly SummaryRow[]): string {
  const { head, body } = paperTableCells(rows);
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), `|${head.map(() => '---').join('|')}|`, ...body.map(line)].join('\n');
}

/**
 * True when some method was run both with and without the expected answer (`--both`), or with the
 * Who&When paper's prompts: the terminal then shows the paper's layout too.
 */
function hasPaperLayout(rows: readonly SummaryRow[]): boolean {
  return rows.some(
    (row) =>
      row.method.includes(PAPER_PROMPTS_TAG) ||
      (row.useGroundTruth === true &&
        rows.some((other) => other.method === row.method && other.useGroundTruth === false)),
  );
}

/** A share as percent digits with one decimal, without the sign (table cells). */
export const percentText = (value: number) => `${(value * 100).toFixed(1)}`;

/**
 * The failure-mode tables: micro- and macro-F1 (and pair-level micro-F1) per method next to its
 * constant baseline, then precision / recall / F1 per mode; '' when no run is labelled with modes.
 */
function modesTables(summary: EvalSummary): string {
  const modes = summary.modes;
  if (!modes || modes.rows.length === 0) return '';
  const withPairs = modes.rows.some((row) => row.pairs);
  const overall = [
    `| method | runs | micro-F1 | macro-F1 |${withPairs ? ' (agent, mode) pair micro-F1 |' : ''}`,
    `|---|---|---|---|${withPairs ? '---|' : ''}`,
    ...modes.rows.map(
      (row) =>
        `| ${row.method} | ${row.traces} | ${formatEstimate(row.micro)} | ${formatEstimate(row.macro)} |${withPairs ? ` ${row.pairs ? formatEstimate(row.pairs) : '–'} |` : ''}`,
    ),
  ];
  const codes = modes.rows[0]!.perMode.filter((_, index) =>
    modes.rows.some((row) => row.perMode[index]!.support > 0),
  );
  const perMode = [
    `| mode | runs with it | ${modes.rows.map((row) => `${row.method}: P / R / F1`).join(' | ')} |`,
    `|---|---|${modes.rows.map(() => '---|').join('')}`,
    ...codes.map((mode) => {
      const cells = modes.rows.map((row) => {
        const score = row.perMode.find((entry) => entry.code === mode.code)!;
        return `${percentText(score.precision)} / ${percentText(score.recall)} / ${percentText(score.f1)}`;
      });
      return `| ${mode.label} | ${mode.support} | ${cells.join(' | ')} |`;
    }),
  ];
  const excluded =
    modes.excludedTrainingTraces > 0
      ? `\n${modes.excludedTrainingTraces} runs the offline mode classifier was trained on are left out of \`offline\` (--include-train keeps them; \`--method offline-cv\` scores them by cross-validation).\n`
      : '';
  return `Failure modes (MAST), F1 with 95% bootstrap interval over runs; macro-F1 averages the modes some run is labelled with; pairs name the blamed agent with each mode:\n\n${overall.join('\n')}\n\nPer mode (%):\n\n${perMode.join('\n')}\n${excluded}`;
}

/** What the terminal shows of a report: its notes, the accuracy table and the calibration. */
export function terminalReport(summary: EvalSummary): string {
  const calibration = calibrationTable(summary);
  const paper = hasPaperLayout(summary.rows)
    ? `\nIn the layout of the Who&When paper (%; its published figures used the lenient step rule):\n\n${paperTable(summary.rows)}\n`
    : '';
  const modes = modesTables(summary);
  const accuracy =
    summary.rows.length > 0
      ? `${accuracyTable(summary.rows)}\n${paper}${calibration ? `\n${calibration}\n` : ''}`
      : '';
  return `${reportNotes(summary)
    .map((note) => `- ${note}`)
    .join('\n')}\n\n${accuracy}${modes ? `\n${modes}` : ''}${injectedText(summary)}`;
}

/** Injected runs (faultline inject): which method to use, and the table per mode and operator. */
function injectedText(summary: EvalSummary): string {
  if (!summary.injected) return '';
  return `\nYour system, injected faults: ${summary.injected.verdict}\n\n${accuracyTable(summary.injected.rows)}\n`;
}

/** Calls, tokens, cost and time per method (totals over all subsets). */
function usageTable(rows: readonly SummaryRow[]): string {
  const lines = [
    '| method | traces | calls | shortened calls | input tokens | output tokens | est. cost (USD) | ms per trace |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const totals = methodTotals(rows);
  for (const row of totals) {
    lines.push(
      `| ${methodLabel(row.method, row.useGroundTruth)} | ${row.traces} | ${row.calls} | ${row.shortenedCalls} | ${row.inputTokens} | ${row.outputTokens} | ${row.costUsd.toFixed(4)} | ${row.millisecondsPerTrace.toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

/** The whole Markdown report. */
export function renderMarkdownReport(summary: EvalSummary): string {
  const parts = [
    '# faultline evaluation',
    '',
    `Generated ${summary.generatedAt}.`,
    '',
    ...reportNotes(summary).map((note) => `- ${note}`),
    '',
    '## Accuracy',
    '',
    accuracyTable(summary.rows),
    '',
    '## In the layout of the Who&When paper (agent / step accuracy, %; the published figures used the lenient step rule)',
    '',
    paperTable(summary.rows),
    '',
    '## Calibration',
    '',
    'Expected calibration error (ECE) of stated confidences over ten bins: 0 means a stated 70% is right 70% of the time.',
    '',
    calibrationTable(summary) || 'No method stated confidences.',
    '',
    ...(overstatementTable(summary) ? [overstatementTable(summary), ''] : []),
    ...reliabilitySection(summary),
    '## Failure modes',
    '',
    modesTables(summary) || 'No run is labelled with MAST failure modes.',
    '',
    ...(summary.injected
      ? [
          '## Your system: injected faults',
          '',
          summary.injected.verdict,
          '',
          accuracyTable(summary.injected.rows),
          '',
        ]
      : []),
    '## Usage',
    '',
    usageTable(summary.rows),
    '',
    '## Per-trace predictions',
    '',
    '| trace | subset | method | predicted | label | agent | step | calls | tokens in / out | cost | ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...summary.records.map((record) => {
      const agentRight = agentCorrect(
        record.predicted.agent,
        record.label.agent,
        record.label.agents,
      );
      const stepRight = stepCorrect(record.predicted.step, record.label.step);
      const spend = spendText(record);
      return `| ${cell(record.file)} | ${cell(record.subset)} | ${methodLabel(record.method, record.useGroundTruth)} | ${cell(predictionText(record))} | ${cell(record.label.agent ?? '?')} @ ${record.label.step ?? '?'} | ${agentRight ? 'yes' : 'no'} | ${stepRight ? 'yes' : 'no'} | ${spend.calls} | ${spend.tokens} | ${spend.cost} | ${spend.milliseconds} |`;
    }),
    '',
  ];
  return parts.join('\n');
}
