/**
 * The calibration table of docs/MODEL.md: expected calibration error of the offline model's stated
 * confidences, held out two ways (five question-grouped folds, seeds 0 and 1; and leaving one
 * system out), with each fold's model stating raw scores and then calibrated on its own training
 * runs, as `faultline train` calibrates the model it writes (nested: the held-out runs never
 * shape the mapping). Agent confidence is judged on the runs with one responsible agent and on
 * all runs; step confidence on the runs with a step label.
 *
 *   node --import tsx scripts/calibration.ts ../shared/datasets/who-and-when ../shared/datasets/aegis
 *
 * `--familiar` prints the cross-validated, calibrated figures alone, per subset too.
 *
 * Several minutes: calibrating a fold model trains it again on inner folds.
 */
import { writeFileSync } from 'node:fs';
import type { Calibration } from '../src/eval/calibration.js';
import { crossValidationRecords } from '../src/eval/cross-validate.js';
import type { FoldPlan } from '../src/attribution/offline/train/folds.js';
import { reliabilityChart } from '../src/eval/report-html.js';
import { reliabilityTable, type ReliabilityLine } from '../src/eval/report-markdown.js';
import { bySubset } from '../src/eval/metrics.js';
import { calibrationOfRecords } from '../src/eval/summary.js';
import { labelledRuns } from './labelled-runs.js';

// `--familiar`: the cross-validated, calibrated figures alone (the familiar runs' check).
const familiarOnly = process.argv.includes('--familiar');
const args = process.argv.slice(2).filter((arg) => arg !== '--familiar');
const chartAt = args.indexOf('--chart');
const chartFile = chartAt >= 0 ? args.splice(chartAt, 2)[1] : undefined;
if (chartAt >= 0 && !chartFile) {
  console.error('calibration.ts: --chart needs the SVG file to write');
  process.exit(2);
}
const traces = await labelledRuns('calibration.ts', args);

const cell = (calibration: Calibration | undefined) =>
  calibration
    ? `${calibration.ece.toFixed(3)} (stated ${(100 * calibration.confidence).toFixed(0)}%, right ${(100 * calibration.accuracy).toFixed(0)}%)`
    : '–';
/** Each way of holding out: its name in the tables, its short name over a chart, its folds. */
const PLANS: [string, string, FoldPlan][] = [
  ['cross-validated', 'cross-validated', { folds: 5, seeds: [0, 1] }],
  ['leave one system out', 'one system out', { by: 'system', folds: 0, seeds: [0] }],
];
console.log(
  '| | agent confidence ECE, runs with one responsible agent | agent confidence ECE, all runs | step confidence ECE |',
);
console.log('|---|---|---|---|');
const reliability: ReliabilityLine[] = [];
const bySubsetLines: string[] = [];
const charts: { title: string; calibration: Calibration | undefined }[] = [];
for (const [name, short, plan] of familiarOnly ? PLANS.slice(0, 1) : PLANS)
  for (const calibrate of familiarOnly ? [true] : [false, true]) {
    process.stderr.write(`${name}, ${calibrate ? 'calibrated' : 'raw'}...\n`);
    const records = crossValidationRecords(traces, { plan, calibrate });
    const calibration = calibrationOfRecords(records);
    // Per subset too (Who&When held out by question: the familiar runs' figure).
    if (calibrate && plan.by !== 'system')
      for (const [subset, items] of bySubset(records)) {
        const figures = calibrationOfRecords(items);
        bySubsetLines.push(
          `| ${name}, calibrated | ${subset} | ${cell(figures.agentSingleCause ?? figures.agent)} | ${cell(figures.step)} |`,
        );
      }
    // Where no run has several responsible agents, every run has one.
    const single = calibration.agentSingleCause ?? calibration.agent;
    console.log(
      `| ${name}, ${calibrate ? 'calibrated' : 'raw'} | ${cell(single)} | ${cell(calibration.agent)} | ${cell(calibration.step)} |`,
    );
    if (calibrate) {
      reliability.push(
        { label: `${name}, agent (one responsible agent)`, calibration: single },
        { label: `${name}, step`, calibration: calibration.step },
      );
      charts.push(
        { title: `${short}: agent`, calibration: single },
        { title: `${short}: step`, calibration: calibration.step },
      );
    }
  }
console.log(
  `\n| | subset | agent confidence ECE, runs with one responsible agent | step confidence ECE |\n|---|---|---|---|\n${bySubsetLines.join('\n')}`,
);
console.log(`\nReliability of the calibrated statements:\n\n${reliabilityTable(reliability)}`);
if (chartFile) {
  const drawn = charts.flatMap(({ title, calibration }) =>
    calibration ? [reliabilityChart(title, calibration)] : [],
  );
  const [width, height] = [240, 250];
  writeFileSync(
    chartFile,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width * drawn.length}" height="${height}">${drawn
      .map((chart, index) => `<g transform="translate(${index * width} 0)">${chart}</g>`)
      .join('')}</svg>\n`,
  );
  console.error(`wrote ${chartFile}`);
}
