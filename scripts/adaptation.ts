/**
 * The adaptation table of docs/MODEL.md: leave one system out, take k of its labelled runs (whole
 * questions, three draws) as "your" runs, and measure agent (and, where labelled, step) accuracy
 * on its other runs for
 * - held out: the model trained on the other systems alone;
 * - adapted: that model adapted to the k runs as `faultline train --base` and `faultline adapt`
 *   adapt it (train/system-layer.ts: the adapted layer, the blend with the record, the record
 *   alone or nothing, chosen by leaving each of the k runs out in turn);
 * - most often blamed: the agent the k runs blame most often (every responsible agent counting), at
 *   its first step (the baseline `faultline adapt` prints);
 * - most talkative: the speaker with the most steps, at its first step.
 * The choices made on each system's draws are listed, with the held-out accuracy each choice had
 * on the k runs.
 *
 *   node --import tsx scripts/adaptation.ts ../shared/datasets/who-and-when \
 *     ../shared/datasets/aegis [injected/runs] [--sizes 10,20]
 */
import { createHash } from 'node:crypto';
import { firstAgentStep } from '../src/attribution/first-agent.js';
import { attributeWithModel } from '../src/attribution/offline/attribute/attributor.js';
import type { OfflineModel } from '../src/attribution/offline/model/model-file.js';
import { adaptModel } from '../src/attribution/offline/train/system-layer.js';
import { trainModelFile } from '../src/attribution/offline/train/train-model-file.js';
import { mostBlamed } from '../src/eval/adaptation.js';
import { mostTalkativeSpeaker } from '../src/eval/baselines.js';
import { agentCorrect, stepCorrect } from '../src/eval/metrics.js';
import { sameAgent } from '../src/trace/agents.js';
import type { Trace } from '../src/trace/model.js';
import { subsetOf } from '../src/trace/subset.js';
import { labelledRuns } from './labelled-runs.js';

const sizesAt = process.argv.indexOf('--sizes');
const SIZES = sizesAt > 0 ? process.argv[sizesAt + 1]!.split(',').map(Number) : [20];
const DRAWS = [0, 1, 2];
const VARIANTS = ['held out', 'adapted', 'most often blamed', 'most talkative'] as const;
type Variant = (typeof VARIANTS)[number];
const folders = process.argv
  .slice(2)
  .filter((arg, index, all) => !arg.startsWith('--') && all[index - 1] !== '--sizes');

const started = Date.now();
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

/** `agent` named at its first step (the first agent step where it took none). */
function atFirstStep(trace: Trace, agent: string): [string | null, number] {
  const first = trace.steps.findIndex((step) => sameAgent(step.agent, agent));
  const step = first === -1 ? firstAgentStep(trace) : first;
  return [trace.steps[step]?.agent ?? null, step];
}

console.log(
  `| held-out system | k | ${VARIANTS.join(' | ')} | adapted − best baseline | chosen (held-out agent accuracy on the k runs: adapted / blend / prior / shipped) |`,
);
console.log(`|---|---|${VARIANTS.map(() => '---').join('|')}|---|---|`);
const margins = new Map<number, number[]>();
for (const system of systems) {
  const others = traces.filter((trace) => subsetOf(trace) !== system);
  const own = traces.filter((trace) => subsetOf(trace) === system);
  const heldOut = trainModelFile(others, { parts: ['scorers'] });
  for (const size of SIZES) {
    const tallies = new Map<Variant, Tally>(
      VARIANTS.map((variant) => [variant, { agent: 0, step: 0, stepped: 0, tested: 0 }]),
    );
    const chosen: string[] = [];
    for (const draw of DRAWS) {
      const ranked = [...own].sort((left, right) =>
        order(left, draw).localeCompare(order(right, draw)),
      );
      const added = ranked.slice(0, size);
      const questions = new Set(added.map((trace) => trace.question ?? trace.id));
      const adapted: OfflineModel = adaptModel(heldOut, added);
      const layer = adapted.system;
      if (layer?.heldOut)
        chosen.push(
          `${layer.choice} (${[layer.heldOut.adapted, layer.heldOut.blend, layer.heldOut.prior, layer.heldOut.shipped].map((value) => (100 * value).toFixed(0)).join(' / ')})`,
        );
      const blamed = mostBlamed(added) ?? '';
      for (const trace of own) {
        if (added.includes(trace) || questions.has(trace.question ?? trace.id)) continue;
        const named = (model: OfflineModel): [string | null, number | null] => {
          const result = attributeWithModel(trace, model);
          return [result.agent, result.step];
        };
        const results: [Variant, [string | null, number | null]][] = [
          ['held out', named(heldOut)],
          ['adapted', named(adapted)],
          ['most often blamed', atFirstStep(trace, blamed)],
          ['most talkative', atFirstStep(trace, mostTalkativeSpeaker(trace))],
        ];
        for (const [variant, [agent, step]] of results) {
          const tally = tallies.get(variant)!;
          tally.tested += 1;
          tally.agent += agentCorrect(agent, trace.labels?.agent, trace.labels?.agents) ? 1 : 0;
          if (trace.labels?.step !== undefined) {
            tally.stepped += 1;
            tally.step += stepCorrect(step, trace.labels.step) ? 1 : 0;
          }
        }
      }
    }
    const rate = (variant: Variant) => tallies.get(variant)!.agent / tallies.get(variant)!.tested;
    const margin = rate('adapted') - Math.max(rate('most often blamed'), rate('most talkative'));
    margins.set(size, [...(margins.get(size) ?? []), margin]);
    console.log(
      `| ${system} | ${size} | ${VARIANTS.map((variant) => cell(tallies.get(variant)!)).join(' | ')} | ${(100 * margin).toFixed(1)} | ${chosen.join('; ')} |`,
    );
  }
}
for (const [size, values] of margins) {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(
    `\nk = ${size}: adapted − max(most often blamed, most talkative), mean over the systems ${(100 * mean).toFixed(1)} points, least ${(100 * Math.min(...values)).toFixed(1)}`,
  );
}
process.stderr.write(`${((Date.now() - started) / 1000).toFixed(0)} s\n`);
