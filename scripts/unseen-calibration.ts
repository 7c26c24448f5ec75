/**
 * The per-system table of docs/MODEL.md (Confidence and unfamiliar runs): expected calibration
 * error of the agent confidence of unfamiliar runs, each system held out twice over. Its runs are
 * predicted by scorers trained on the other systems (leave one system out), and the mapping that
 * states their confidence is fitted on the other systems' held-out predictions alone (nested), as
 * `faultline train` fits it on all of them: format 5's Platt mapping of the score, and format 6's
 * held-out hit rate (train/calibrate.ts). Judged on the runs the fold's model finds unfamiliar,
 * those with one responsible agent (what the confidence states) and all of them.
 *
 *   node --import tsx scripts/unseen-calibration.ts ../shared/datasets/who-and-when ../shared/datasets/aegis
 */
import {
  judge,
  singleCause,
  unseenSystemsAgent,
  type Judged,
} from '../src/attribution/offline/train/calibrate.js';
import { foldsOf } from '../src/attribution/offline/train/folds.js';
import { fitPlatt } from '../src/attribution/offline/train/platt.js';
import { trainModelFile } from '../src/attribution/offline/train/train-model-file.js';
import { applyPlatt, type Platt } from '../src/attribution/offline/scores/calibration.js';
import { calibrationOf } from '../src/eval/calibration.js';
import { subsetOf } from '../src/trace/subset.js';
import { labelledRuns } from './labelled-runs.js';

const traces = await labelledRuns('unseen-calibration.ts', process.argv.slice(2));
const systems = [...new Set(traces.map(subsetOf))];
const judged: Judged = { agent: [], step: [] };
for (const fold of foldsOf(
  traces,
  traces.map((trace) => systems.indexOf(subsetOf(trace))),
  systems.length,
)) {
  judge(fold.held, trainModelFile(fold.training, { parts: ['scorers'] }), judged);
  process.stderr.write('.');
}
process.stderr.write('\n');

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const ece = (items: Judged['agent'], mapping: Platt) => {
  const calibration = calibrationOf(
    items.map((item) => ({
      confidence: applyPlatt(item.confidence, mapping),
      correct: item.correct,
    })),
  );
  return calibration
    ? `${calibration.ece.toFixed(3)} (stated ${percent(calibration.confidence)}, right ${percent(calibration.accuracy)})`
    : '–';
};
console.log(
  '| held-out system | unfamiliar runs (one responsible agent) | format 5: Platt mapping, one responsible agent | format 6: held-out hit rate, one responsible agent | format 6, all unfamiliar runs | spread stated (other systems) |',
);
console.log('|---|---|---|---|---|---|');
for (const system of systems) {
  const others = judged.agent.filter((item) => item.system !== system);
  const before = fitPlatt(singleCause(others));
  const after = unseenSystemsAgent(others);
  const held = judged.agent.filter((item) => item.system === system && !item.familiar);
  const single = held.filter((item) => item.single);
  const range = after?.agentRange;
  console.log(
    `| ${system} | ${held.length} (${single.length}) | ${single.length ? ece(single, before) : '–'} | ${single.length && after ? ece(single, after.agent) : '–'} | ${held.length && after ? ece(held, after.agent) : '–'} | ${range ? `${percent(range[0])}–${percent(range[1])}` : '–'} |`,
  );
}
