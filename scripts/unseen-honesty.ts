/**
 * The tables of docs/MODEL.md on systems faultline never saw (issues 43 and 44), each system held
 * out in turn and predicted by a model trained, scorers and calibration alike, on the others
 * alone (so the calibration's own held-out systems are four, nested); folders after `--unseen`
 * are predicted by a model trained on every training folder and never trained on.
 *
 * 1. Step accuracy (exact, ±1, top-3) of the unfamiliar decoding rules: the named agent's first
 *    failing step (before), its most likely step, and the blend shipped (its first rejected step,
 *    else its most likely), on every system with step labels.
 * 2. Per system: agent and step accuracy, mean stated confidence, overstatement and ECE, before
 *    (the held-out systems' mean hit rate, the first failing step stated at its rank's rate) and
 *    after (train/unseen-statement.ts), on all held-out runs, found unfamiliar or not.
 * 3. With `--contradiction`, the same models without the contradiction feature: agent and step
 *    accuracy, and how often the feature fires.
 *
 *   node --import tsx scripts/unseen-honesty.ts ../shared/datasets/who-and-when \
 *     ../shared/datasets/aegis --unseen injected/runs [--contradiction]
 */
import { attributeWithModel } from '../src/attribution/offline/attribute/attributor.js';
import { computeFeatures } from '../src/attribution/offline/features/features.js';
import { FEATURE_NAMES } from '../src/attribution/offline/features/feature-names.js';
import type { OfflineModel } from '../src/attribution/offline/model/model-file.js';
import {
  DEFAULT_TRAIN_SETTINGS,
  type UnfamiliarStep,
} from '../src/attribution/offline/model/settings.js';
import { trainModelFile } from '../src/attribution/offline/train/train-model-file.js';
import { calibrationOf } from '../src/eval/calibration.js';
import { namesResponsible } from '../src/trace/agents.js';
import type { Trace } from '../src/trace/model.js';
import { subsetOf } from '../src/trace/subset.js';
import { labelledRuns } from './labelled-runs.js';

const args = process.argv.slice(2).filter((arg) => arg !== '--contradiction');
const at = args.indexOf('--unseen');
const traces = await labelledRuns('unseen-honesty.ts', at >= 0 ? args.slice(0, at) : args);
const unseen = at >= 0 ? await labelledRuns('unseen-honesty.ts', args.slice(at + 1)) : [];
const systems = [...new Set(traces.map(subsetOf))];
const RULES: UnfamiliarStep[] = ['first-failing', 'likeliest', 'rejected-else-likeliest'];

/** Each held-out system with the model that never saw it (trained as `dropFeatures` says). */
function heldOut(
  dropFeatures: readonly string[] = [],
): { system: string; runs: Trace[]; model: OfflineModel }[] {
  const settings = { ...DEFAULT_TRAIN_SETTINGS, dropFeatures };
  const parts = ['scorers', 'calibration'] as const;
  const folds = systems.map((system) => ({
    system,
    runs: traces.filter((trace) => subsetOf(trace) === system),
    model: trainModelFile(
      traces.filter((trace) => subsetOf(trace) !== system),
      { settings, parts },
    ),
  }));
  process.stderr.write('.');
  if (unseen.length === 0) return folds;
  const all = trainModelFile(traces, { settings, parts });
  const extra = [...new Set(unseen.map(subsetOf))].map((system) => ({
    system: `${system} (unseen)`,
    runs: unseen.filter((trace) => subsetOf(trace) === system),
    model: all,
  }));
  return [...folds, ...extra];
}

/** The model as it stated and decoded before issue 44: no evidence, the first failing step. */
function before(model: OfflineModel, step: UnfamiliarStep = 'first-failing'): OfflineModel {
  const calibration = model.calibration && {
    ...model.calibration,
    unfamiliar: { ...model.calibration.unfamiliar },
  };
  if (calibration) {
    delete calibration.unfamiliar.agentByEvidence;
    delete calibration.unfamiliar.stepByEvidence;
  }
  return {
    ...model,
    decoding: { ...model.decoding, unfamiliarStep: step },
    ...(calibration ? { calibration } : {}),
  };
}

const pct = (value: number) => `${(100 * value).toFixed(1)}%`;
const signed = (value: number) => `${value > 0 ? '+' : ''}${value.toFixed(3)}`;

/** Exact, ±1 and top-3 step accuracy of a model on step-labelled runs. */
function stepFigures(runs: readonly Trace[], model: OfflineModel): string {
  const labelled = runs.filter((trace) => trace.labels?.step !== undefined);
  let exact = 0;
  let near = 0;
  let top3 = 0;
  for (const trace of labelled) {
    const result = attributeWithModel(trace, model);
    const label = trace.labels!.step!;
    if (result.step === label) exact += 1;
    if (result.step !== null && Math.abs(result.step - label) <= 1) near += 1;
    if ((result.candidates ?? []).some((entry) => entry.step === label)) top3 += 1;
  }
  const share = (count: number) => pct(count / labelled.length);
  return `${share(exact)} | ${share(near)} | ${share(top3)}`;
}

/** Stated against right, agent and step, on a system's runs. */
function honesty(runs: readonly Trace[], model: OfflineModel): string {
  const agent: { confidence: number; correct: boolean }[] = [];
  const step: { confidence: number; correct: boolean }[] = [];
  for (const trace of runs) {
    const result = attributeWithModel(trace, model);
    if (result.agentConfidence !== undefined)
      agent.push({
        confidence: result.agentConfidence,
        correct: namesResponsible(result.agent, trace.labels),
      });
    if (result.confidence !== undefined && trace.labels?.step !== undefined)
      step.push({ confidence: result.confidence, correct: result.step === trace.labels.step });
  }
  const cells = (judged: typeof agent) => {
    const calibration = calibrationOf(judged);
    return calibration
      ? `${pct(calibration.confidence)} | ${pct(calibration.accuracy)} | ${signed(calibration.overstatement)} | ${calibration.ece.toFixed(3)}`
      : '– | – | – | –';
  };
  return `${cells(agent)} | ${cells(step)}`;
}

const folds = heldOut();
console.log('\n| held-out system | rule | exact | ±1 | top-3 |\n|---|---|---|---|---|');
for (const { system, runs, model } of folds) {
  if (!runs.some((trace) => trace.labels?.step !== undefined)) continue;
  for (const rule of RULES)
    console.log(`| ${system} | ${rule} | ${stepFigures(runs, before(model, rule))} |`);
}
console.log(
  '\n| held-out system | n | | agent stated | agent right | agent over | agent ECE | step stated | step right | step over | step ECE |\n|---|---|---|---|---|---|---|---|---|---|---|',
);
for (const { system, runs, model } of folds) {
  console.log(`| ${system} | ${runs.length} | before | ${honesty(runs, before(model))} |`);
  console.log(`| ${system} | ${runs.length} | after | ${honesty(runs, model)} |`);
}
if (process.argv.includes('--contradiction')) {
  const column = FEATURE_NAMES.indexOf('contradicts_tool_output');
  const without = heldOut(['contradicts_tool_output']);
  console.log(
    '\n| held-out system | runs where it fires | at the labelled step | agent with / without | step with / without |\n|---|---|---|---|---|',
  );
  for (const [index, { system, runs, model }] of folds.entries()) {
    const fires = runs.map((trace) => computeFeatures(trace).map((row) => row[column]! > 0));
    const at = runs.filter((trace, run) => fires[run]![trace.labels?.step ?? -1]).length;
    const accuracy = (trained: OfflineModel) => {
      const results = runs.map((trace) => attributeWithModel(trace, trained));
      const agent = results.filter((result, run) =>
        namesResponsible(result.agent, runs[run]!.labels),
      );
      const labelled = runs.filter((trace) => trace.labels?.step !== undefined);
      const step = results.filter((result, run) => result.step === runs[run]!.labels?.step);
      return [agent.length / runs.length, labelled.length ? step.length / labelled.length : NaN];
    };
    const [agentWith, stepWith] = accuracy(model);
    const [agentWithout, stepWithout] = accuracy(without[index]!.model);
    console.log(
      `| ${system} | ${fires.filter((row) => row.some(Boolean)).length} | ${at} | ${pct(agentWith!)} / ${pct(agentWithout!)} | ${Number.isNaN(stepWith) ? '–' : `${pct(stepWith!)} / ${pct(stepWithout!)}`} |`,
    );
  }
}
process.stderr.write('\n');
