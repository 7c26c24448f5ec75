/**
 * The per-system table of docs/MODEL.md (Confidence and unfamiliar runs): expected calibration
 * error of the agent confidence of unfamiliar runs, each system held out twice over. Its runs are
 * predicted by scorers trained on the other systems (leave one system out), and the rate that
 * states their confidence comes from the other systems' held-out predictions alone, each of those
 * predicted by scorers that never saw it nor the system held out (nested), as `faultline train`
 * derives it from all of them (train/calibrate.ts). Two rules: format 6's first, the hit rate on
 * the other systems' unfamiliar runs with one responsible agent; and the mean of the other
 * systems' hit rates on all their held-out runs (naming any of several responsible agents is
 * right). Judged on the runs the fold's model finds unfamiliar: those with one responsible agent,
 * and all of them.
 *
 *   node --import tsx scripts/unseen-calibration.ts ../shared/datasets/who-and-when ../shared/datasets/aegis
 */
import {
  judge,
  singleCause,
  unseenSystemsAgent,
  type Judged,
} from '../src/attribution/offline/train/calibrate.js';
import { trainModelFile } from '../src/attribution/offline/train/train-model-file.js';
import { applyPlatt, type Platt } from '../src/attribution/offline/scores/calibration.js';
import { calibrationOf } from '../src/eval/calibration.js';
import type { Trace } from '../src/trace/model.js';
import { subsetOf } from '../src/trace/subset.js';
import { labelledRuns } from './labelled-runs.js';

const traces = await labelledRuns('unseen-calibration.ts', process.argv.slice(2));
const systems = [...new Set(traces.map(subsetOf))];

/** The runs of `system` judged by scorers trained on the runs of none of `left`. */
function judgedOf(system: string, left: readonly string[]): Judged['agent'] {
  const judged: Judged = { agent: [], step: [] };
  const model = trainModelFile(
    traces.filter((trace) => !left.includes(subsetOf(trace))),
    { parts: ['scorers'] },
  );
  judge(
    traces.filter((trace: Trace) => subsetOf(trace) === system),
    model,
    judged,
  );
  process.stderr.write('.');
  return judged.agent;
}

/** Format 6's rule: the hit rate on the unfamiliar runs with one responsible agent. */
function singleCauseRate(judged: Judged['agent']): Platt | undefined {
  const unfamiliar = singleCause(judged.filter((item) => !item.familiar));
  if (unfamiliar.length === 0) return undefined;
  const rate = unfamiliar.filter((item) => item.correct).length / unfamiliar.length;
  return { a: 0, b: Math.log(rate / (1 - rate)) };
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const ece = (items: Judged['agent'], mapping: Platt | undefined, stated = true) => {
  const calibration = mapping
    ? calibrationOf(
        items.map((item) => ({
          confidence: applyPlatt(item.confidence, mapping),
          correct: item.correct,
        })),
      )
    : undefined;
  if (!calibration) return '–';
  const figures = stated
    ? `stated ${percent(calibration.confidence)}, right ${percent(calibration.accuracy)}`
    : `right ${percent(calibration.accuracy)}`;
  return `${calibration.ece.toFixed(3)} (${figures})`;
};
console.log(
  '| held-out system | unfamiliar runs (one responsible agent) | format 6 rule, one responsible agent | format 6 rule, all unfamiliar runs | **mean of systems’ hit rates**, one responsible agent | **mean of systems’ hit rates**, all unfamiliar runs | spread stated (other systems) |',
);
console.log('|---|---|---|---|---|---|---|');
for (const system of systems) {
  const held = judgedOf(system, [system]).filter((item) => !item.familiar);
  const single = held.filter((item) => item.single);
  const others = systems
    .filter((other) => other !== system)
    .flatMap((other) => judgedOf(other, [system, other]));
  const before = singleCauseRate(others);
  const after = unseenSystemsAgent(others);
  const range = after?.agentRange;
  console.log(
    `| ${system} | ${held.length} (${single.length}) | ${single.length ? ece(single, before) : '–'} | ${held.length ? ece(held, before, false) : '–'} | ${single.length ? ece(single, after?.agent) : '–'} | ${held.length ? ece(held, after?.agent) : '–'} | ${range ? `${percent(range[0])}–${percent(range[1])}` : '–'} |`,
  );
}
process.stderr.write('\n');
