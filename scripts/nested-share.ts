/**
 * The honest held-out figure for `unfamiliarRejectedShare` (docs/MODEL.md): the share was picked on
 * the leave-one-system-out figures, so here it is picked without the held-out system. For each
 * system, the share (off, 0.7, 0.8 or 0.9) with the best mean accuracy over an inner
 * leave-one-system-out of the other systems decodes that system, predicted by a model trained on
 * the others. Prints the choice and the agent accuracy per system, and the means.
 *
 *   node --import tsx scripts/nested-share.ts ../shared/datasets/who-and-when ../shared/datasets/aegis
 */
import { attributeWithModel } from '../src/attribution/offline/attribute/attributor.js';
import type { OfflineModel } from '../src/attribution/offline/model/model-file.js';
import { trainModelFile } from '../src/attribution/offline/train/train-model-file.js';
import { namesResponsible } from '../src/trace/agents.js';
import type { Trace } from '../src/trace/model.js';
import { subsetOf } from '../src/trace/subset.js';
import { labelledRuns } from './labelled-runs.js';

const SHARES = [0, 0.7, 0.8, 0.9];
const traces = await labelledRuns('nested-share.ts', process.argv.slice(2));
const systems = [...new Set(traces.map(subsetOf))].sort();
const runsOf = (system: string) => traces.filter((trace) => subsetOf(trace) === system);

/** Models trained without the given systems, each trained once. */
const models = new Map<string, OfflineModel>();
function modelWithout(left: readonly string[]): OfflineModel {
  const key = [...left].sort().join('\u0000');
  let model = models.get(key);
  if (!model) {
    model = trainModelFile(
      traces.filter((trace) => !left.includes(subsetOf(trace))),
      { parts: ['scorers'] },
    );
    models.set(key, model);
  }
  return model;
}

/** Agent accuracy of a model on some runs with the given share. */
function accuracy(model: OfflineModel, runs: readonly Trace[], share: number): number {
  const decoded = { ...model, decoding: { ...model.decoding, unfamiliarRejectedShare: share } };
  const right = runs.filter((trace) =>
    namesResponsible(attributeWithModel(trace, decoded).agent, trace.labels),
  ).length;
  return right / runs.length;
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / values.length;
console.log('| held-out system | share chosen (inner) | nested | rule off |');
console.log('|---|---|---|---|');
const nested: number[] = [];
const off: number[] = [];
for (const system of systems) {
  process.stderr.write(`${system}...\n`);
  const inner = systems.filter((other) => other !== system);
  let chosen = SHARES[0]!;
  let best = -1;
  for (const share of SHARES) {
    const score = mean(
      inner.map((held) => accuracy(modelWithout([system, held]), runsOf(held), share)),
    );
    if (score > best + 1e-9) [chosen, best] = [share, score];
  }
  const model = modelWithout([system]);
  nested.push(accuracy(model, runsOf(system), chosen));
  off.push(accuracy(model, runsOf(system), 0));
  console.log(
    `| ${system} | ${chosen === 0 ? 'off' : chosen} (${percent(best)}) | ${percent(nested.at(-1)!)} | ${percent(off.at(-1)!)} |`,
  );
}
console.log(`| mean | | ${percent(mean(nested))} | ${percent(mean(off))} |`);
