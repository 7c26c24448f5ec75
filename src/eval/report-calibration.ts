/**
 * The reports' calibration figures as Markdown: expected calibration error per method, what the
 * figures mean where it is not plain, and reliability tables (each tenth of stated confidence
 * with how often it was right).
 */
import type { Calibration } from './calibration.js';
import type { EvalSummary } from './summary.js';

/** An overstatement as a signed share: `+0.05`, `-0.12`. */
export const overText = (value: number) => `${value > 0 ? '+' : ''}${value.toFixed(2)}`;

/** `0.087 (n 240: stated 45%, right 40%, over +0.05)`, or `–`. */
function calibrationCell(calibration: Calibration | undefined): string {
  if (!calibration) return '–';
  return `${calibration.ece.toFixed(3)} (n ${calibration.count}: stated ${(calibration.confidence * 100).toFixed(0)}%, right ${(calibration.accuracy * 100).toFixed(0)}%, over ${overText(calibration.overstatement)})`;
}

/** One subset's figures: mean stated, right, overstatement and ECE, or dashes. */
function subsetCells(calibration: Calibration | undefined): string[] {
  if (!calibration) return ['–', '–', '–', '–'];
  return [
    `${(calibration.confidence * 100).toFixed(0)}%`,
    `${(calibration.accuracy * 100).toFixed(0)}%`,
    overText(calibration.overstatement),
    calibration.ece.toFixed(3),
  ];
}

/**
 * Per method and subset: mean stated agent and step confidence, how often right, overstatement
 * (mean stated − accuracy; above 0 the method claims more than it delivers) and ECE. Rows as
 * cells, for the Markdown and HTML reports alike; none where no method states confidences.
 */
export function overstatementRows(summary: EvalSummary): string[][] {
  return Object.entries(summary.calibrationBySubset).flatMap(([label, subsets]) =>
    Object.entries(subsets).map(([subset, calibration]) => [
      label,
      subset,
      ...subsetCells(calibration.agent),
      ...subsetCells(calibration.step),
    ]),
  );
}

/** The headings of overstatementRows. */
export const OVERSTATEMENT_HEADINGS = [
  'method',
  'subset',
  'agent stated',
  'agent right',
  'agent over',
  'agent ECE',
  'step stated',
  'step right',
  'step over',
  'step ECE',
];

/** overstatementRows as a Markdown table with how to read it; '' without rows. */
export function overstatementTable(summary: EvalSummary): string {
  const rows = overstatementRows(summary);
  if (rows.length === 0) return '';
  return [
    'Per subset: mean stated confidence, how often right, overstatement (mean stated − accuracy: above 0 the method claims more than it delivers) and ECE.',
    '',
    `| ${OVERSTATEMENT_HEADINGS.join(' | ')} |`,
    `|${OVERSTATEMENT_HEADINGS.map(() => '---|').join('')}`,
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

/** Methods scored by fold models, which are not calibrated (cross-validate.ts). */
const FOLD_METHODS = /^offline-(cv|loso)\b/;

/** What the calibration figures mean where it is not plain: single-cause runs, raw fold models. */
export function calibrationNotes(summary: EvalSummary): string[] {
  const entries = Object.entries(summary.calibration);
  return [
    ...(entries.some(([, calibration]) => calibration.agentSingleCause)
      ? [
          'Agent confidence states the chance that the named agent is the responsible one, so it is judged on the runs with one responsible agent; where a run has several, naming any of them is right, far more often than stated.',
        ]
      : []),
    ...(entries.some(([label]) => FOLD_METHODS.test(label))
      ? [
          'offline-cv and offline-loso score fold models that are not calibrated (calibrating each would train it again on inner folds), so their ECE is that of raw scores; the model that faultline train writes states calibrated ones (docs/MODEL.md).',
        ]
      : []),
  ];
}

/**
 * Expected calibration error of each method that states confidences, with the agent confidence
 * also on runs with one responsible agent where some have several, then the notes.
 */
export function calibrationTable(summary: EvalSummary): string {
  const entries = Object.entries(summary.calibration);
  if (entries.length === 0) return '';
  const single = entries.some(([, calibration]) => calibration.agentSingleCause);
  const table = [
    `| method | agent confidence ECE |${single ? ' agent confidence ECE, runs with one responsible agent |' : ''} step confidence ECE |`,
    `|---|---|${single ? '---|' : ''}---|`,
    ...entries.map(
      ([label, calibration]) =>
        `| ${label} | ${calibrationCell(calibration.agent)} |${single ? ` ${calibrationCell(calibration.agentSingleCause)} |` : ''} ${calibrationCell(calibration.step)} |`,
    ),
  ].join('\n');
  const notes = calibrationNotes(summary);
  return notes.length > 0 ? `${table}\n\n${notes.join('\n\n')}` : table;
}

/** One line of a reliability table: what was stated, by whom. */
export interface ReliabilityLine {
  label: string;
  calibration: Calibration | undefined;
}

/** The ten confidence bins' headings: `0–10%` to `90–100%`. */
const BIN_HEADINGS = Array.from({ length: 10 }, (_, bin) => `${bin * 10}–${bin * 10 + 10}%`);

/**
 * A reliability chart as a table: for each line, each tenth of stated confidence with how often
 * the statements in it were right, of how many (`42% of 12`); a well-calibrated line is right
 * about as often as its column says. '' when no line has figures.
 */
export function reliabilityTable(lines: readonly ReliabilityLine[]): string {
  const rows = lines.flatMap(({ label, calibration }) => {
    if (!calibration) return [];
    const cells = BIN_HEADINGS.map((_, index) => {
      const bin = calibration.bins.find((candidate) => Math.round(candidate.low * 10) === index);
      return bin ? `${(bin.accuracy * 100).toFixed(0)}% of ${bin.count}` : '–';
    });
    return [`| ${label} | ${cells.join(' | ')} | ${overText(calibration.overstatement)} |`];
  });
  if (rows.length === 0) return '';
  return [
    `| stated confidence | ${BIN_HEADINGS.join(' | ')} | over |`,
    `|---|${BIN_HEADINGS.map(() => '---|').join('')}---|`,
    ...rows,
  ].join('\n');
}

/**
 * The reliability table of every method that states confidences, as the HTML report charts it:
 * agent (all runs, then those with one responsible agent where some have several) and step.
 */
export function methodReliabilityTable(summary: EvalSummary): string {
  return reliabilityTable(
    Object.entries(summary.calibration).flatMap(([label, calibration]) => [
      { label: `${label}, agent`, calibration: calibration.agent },
      {
        label: `${label}, agent, runs with one responsible agent`,
        calibration: calibration.agentSingleCause,
      },
      { label: `${label}, step`, calibration: calibration.step },
    ]),
  );
}

/** The report's reliability chart, as a table, with how to read it; nothing when there is none. */
export function reliabilitySection(summary: EvalSummary): string[] {
  const table = methodReliabilityTable(summary);
  return table
    ? [
        'Reliability: for each tenth of stated confidence, how often the statements in it were right, of how many (42% of 12: 5 of 12 right), and the overstatement (mean stated − accuracy). A well-calibrated method is right about as often as its column says.',
        '',
        table,
        '',
      ]
    : [];
}
