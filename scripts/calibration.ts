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
 * Several minutes: calibrating a fold model trains it again on inner folds.
 */
import type { Calibration } from '../src/eval/calibration.js';
import { crossValidationRecords } from '../src/eval/cross-validate.js';
import type { FoldPlan } from '../src/eval/folds.js';
import { calibrationOfRecords } from '../src/eval/summary.js';
import { labelledRuns } from './labelled-runs.js';

const traces = await labelledRuns('calibration.ts', process.argv.slice(2));

const cell = (calibration: Calibration | undefined) =>
  calibration
    ? `${calibration.ece.toFixed(3)} (stated ${(100 * calibration.confidence).toFixed(0)}%, right ${(100 * calibration.accuracy).toFixed(0)}%)`
    : '–';
const PLANS: [string, FoldPlan][] = [
  ['cross-validated', { folds: 5, seeds: [0, 1] }],
  ['leave one system out', { by: 'system', folds: 0, seeds: [0] }],
];
console.log(
  '| | agent confidence ECE, runs with one responsible agent | agent confidence ECE, all runs | step confidence ECE |',
);
console.log('|---|---|---|---|');
for (const [name, plan] of PLANS)
  for (const calibrate of [false, true]) {
    process.stderr.write(`${name}, ${calibrate ? 'calibrated' : 'raw'}...\n`);
    const calibration = calibrationOfRecords(crossValidationRecords(traces, { plan, calibrate }));
    // Where no run has several responsible agents, every run has one.
    const single = calibration.agentSingleCause ?? calibration.agent;
    console.log(
      `| ${name}, ${calibrate ? 'calibrated' : 'raw'} | ${cell(single)} | ${cell(calibration.agent)} | ${cell(calibration.step)} |`,
    );
  }
