/**
 * The adaptation curve of docs/MODEL.md: leave one system out, add k of its labelled runs to the
 * training data (each counting `--user-weight` times), and measure agent (and, where labelled,
 * step) accuracy on the rest of its runs. Averaged over three draws of the k runs; draws never
 * share a question between the added runs and the tested ones.
 *
 *   node --import tsx scripts/learning-curve.ts ../shared/datasets/who-and-when ../shared/datasets/aegis
 */
import { createHash } from 'node:crypto';
import { attributeWithModel } from '../src/attribution/offline/attribute/attributor.js';
import { trainModelFile } from '../src/attribution/offline/train/train-model-file.js';
import { agentCorrect, stepCorrect } from '../src/eval/metrics.js';
import type { Trace } from '../src/trace/model.js';
import { subsetOf } from '../src/trace/subset.js';
import { labelledRuns } from './labelled-runs.js';

const SIZES = [0, 5, 10, 20];
const DRAWS = [0, 1, 2];
const weightFlag = process.argv.indexOf('--user-weight');
const userWeight = weightFlag === -1 ? 5 : Number(process.argv[weightFlag + 1]);
const folders = process.argv
  .slice(2)
  .filter((arg, index, all) => !arg.startsWith('--') && all[index - 1] !== '--user-weight');

const traces = await labelledRuns('learning-curve.ts', folders);
const systems = [...new Set(traces.map(subsetOf))].sort();
const order = (trace: Trace, draw: number) =>
  createHash('sha256')
    .update(`${draw}:${trace.question ?? trace.id}`)
    .digest('hex');

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
console.log(`| held-out system | ${SIZES.map((k) => `k = ${k}`).join(' | ')} |`);
console.log(`|---|${SIZES.map(() => '---').join('|')}|`);
for (const system of systems) {
  const others = traces.filter((trace) => subsetOf(trace) !== system);
  const own = traces.filter((trace) => subsetOf(trace) === system);
  const cells = SIZES.map((size) => {
    let agent = 0;
    let step = 0;
    let stepped = 0;
    let tested = 0;
    for (const draw of size === 0 ? [0] : DRAWS) {
      // Whole questions are added, so no tested run shares a question with an added one.
      const ranked = [...own].sort((left, right) =>
        order(left, draw).localeCompare(order(right, draw)),
      );
      const added = new Set<Trace>();
      const questions = new Set<string>();
      for (const trace of ranked) {
        if (added.size >= size) break;
        added.add(trace);
        questions.add(trace.question ?? trace.id);
      }
      const model = trainModelFile([...others, ...added], {
        weightOf: (trace) => (added.has(trace) ? userWeight : 1),
        parts: ['scorers'],
      });
      for (const trace of own) {
        if (added.has(trace) || questions.has(trace.question ?? trace.id)) continue;
        const result = attributeWithModel(trace, model);
        tested += 1;
        agent += agentCorrect(result.agent, trace.labels?.agent, trace.labels?.agents) ? 1 : 0;
        if (trace.labels?.step !== undefined) {
          stepped += 1;
          step += stepCorrect(result.step, trace.labels.step) ? 1 : 0;
        }
      }
    }
    return `${percent(agent / tested)}${stepped > 0 ? ` / ${percent(step / stepped)}` : ''}`;
  });
  console.log(`| ${system} | ${cells.join(' | ')} |`);
}
