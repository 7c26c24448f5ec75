/**
 * The adaptation table of docs/MODEL.md: leave one system out, take k of its labelled runs (whole
 * questions, three draws) as "your" runs, and measure agent (and, where labelled, step) accuracy
 * on its other runs for
 * - held out: the model trained on the other systems alone;
 * - + prior: that model with the system layer learned from the k runs (`faultline train --base`,
 *   which works from the shipped model anywhere);
 * - refit: retrained on the other systems plus the k runs counting --user-weight each
 *   (`train --base DIR...` with the base folders at hand);
 * - refit + prior: both;
 * - most often blamed: the agent the k runs blame most often (every responsible agent counting), at
 *   its first step (the baseline `faultline adapt` prints).
 *
 *   node --import tsx scripts/adaptation.ts ../shared/datasets/who-and-when ../shared/datasets/aegis
 */
import { createHash } from 'node:crypto';
import { firstAgentStep } from '../src/attribution/first-agent.js';
import { attributeWithModel } from '../src/attribution/offline/attribute/attributor.js';
import type { OfflineModel } from '../src/attribution/offline/model/model-file.js';
import { adaptModel } from '../src/attribution/offline/train/system-layer.js';
import { trainModelFile } from '../src/attribution/offline/train/train-model-file.js';
import { mostBlamed } from '../src/eval/adaptation.js';
import { agentCorrect, stepCorrect } from '../src/eval/metrics.js';
import { sameAgent } from '../src/trace/agents.js';
import type { Trace } from '../src/trace/model.js';
import { subsetOf } from '../src/trace/subset.js';
import { labelledRuns } from './labelled-runs.js';

const SIZES = [10, 20];
const DRAWS = [0, 1, 2];
const USER_WEIGHT = 5;
const VARIANTS = ['held out', '+ prior', 'refit', 'refit + prior', 'most often blamed'] as const;
type Variant = (typeof VARIANTS)[number];
const skipRefit = process.argv.includes('--no-refit');
const folders = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

const traces = await labelledRuns('adaptation.ts', folders);
const systems = [...new Set(traces.map(subsetOf))].sort();
const order = (trace: Trace, draw: number) =>
  createHash('sha256')
    .update(`${draw}:${trace.question ?? trace.id}`)
    .digest('hex');

interface Tally {
  agent: number;
  step: number;
  stepped: number;
  tested: number;
}
const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const cell = (tally: Tally) =>
  `${percent(tally.agent / tally.tested)}${tally.stepped > 0 ? ` / ${percent(tally.step / tally.stepped)}` : ''}`;

console.log(`| held-out system | k | ${VARIANTS.join(' | ')} | prior weights chosen |`);
console.log(`|---|---|${VARIANTS.map(() => '---').join('|')}|---|`);
const means = new Map<string, number[]>();
for (const system of systems) {
  const others = traces.filter((trace) => subsetOf(trace) !== system);
  const own = traces.filter((trace) => subsetOf(trace) === system);
  const heldOut = trainModelFile(others, { parts: ['scorers'] });
  for (const size of SIZES) {
    const tallies = new Map<Variant, Tally>(
      VARIANTS.map((variant) => [variant, { agent: 0, step: 0, stepped: 0, tested: 0 }]),
    );
    const chosen: number[] = [];
    for (const draw of DRAWS) {
      const ranked = [...own].sort((left, right) =>
        order(left, draw).localeCompare(order(right, draw)),
      );
      const added = ranked.slice(0, size);
      const questions = new Set(added.map((trace) => trace.question ?? trace.id));
      const refit = skipRefit
        ? heldOut
        : trainModelFile([...others, ...added], {
            weightOf: (trace) => (added.includes(trace) ? USER_WEIGHT : 1),
            parts: ['scorers'],
          });
      const layered = (model: OfflineModel): OfflineModel => {
        const adapted = adaptModel(model, added);
        if (adapted.system && model === heldOut) chosen.push(adapted.system.weight);
        return adapted;
      };
      const models: [Variant, OfflineModel][] = [
        ['held out', heldOut],
        ['+ prior', layered(heldOut)],
        ['refit', refit],
        ['refit + prior', layered(refit)],
      ];
      const blamed = mostBlamed(added) ?? '';
      for (const trace of own) {
        if (added.includes(trace) || questions.has(trace.question ?? trace.id)) continue;
        const results: [Variant, string | null, number | null][] = models.map(
          ([variant, model]) => {
            const result = attributeWithModel(trace, model);
            return [variant, result.agent, result.step];
          },
        );
        const first = trace.steps.findIndex((step) => sameAgent(step.agent, blamed));
        const step = first === -1 ? firstAgentStep(trace) : first;
        results.push(['most often blamed', trace.steps[step]?.agent ?? null, step]);
        for (const [variant, agent, named] of results) {
          const tally = tallies.get(variant)!;
          tally.tested += 1;
          tally.agent += agentCorrect(agent, trace.labels?.agent, trace.labels?.agents) ? 1 : 0;
          if (trace.labels?.step !== undefined) {
            tally.stepped += 1;
            tally.step += stepCorrect(named, trace.labels.step) ? 1 : 0;
          }
        }
      }
    }
    for (const variant of VARIANTS) {
      const tally = tallies.get(variant)!;
      const key = `${size}:${variant}`;
      means.set(key, [...(means.get(key) ?? []), tally.agent / tally.tested]);
    }
    console.log(
      `| ${system} | ${size} | ${VARIANTS.map((variant) => cell(tallies.get(variant)!)).join(' | ')} | ${chosen.join(', ')} |`,
    );
  }
}
for (const size of SIZES) {
  const mean = (variant: Variant) => {
    const values = means.get(`${size}:${variant}`) ?? [];
    return percent(values.reduce((sum, value) => sum + value, 0) / values.length);
  };
  console.log(`| mean of the systems | ${size} | ${VARIANTS.map(mean).join(' | ')} | |`);
}
