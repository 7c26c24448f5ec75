/**
 * Training of the failure-mode classifiers (mode-model.ts): one logistic regression per MAST mode
 * over run-level features (mode-features.ts), each with its own decision threshold, and the same
 * kind of classifier over per-agent features, for runs whose faults are labelled per agent.
 * Thresholds are chosen on out-of-fold probabilities (folds grouped by task) to maximise the
 * micro-F1 of the whole set of predicted modes: a rare mode is only named when the model is sure
 * enough for naming it to pay. The k most frequent training modes are kept as the constant baseline
 * it is judged against.
 */
import { sameAgent } from '../../../trace/agents.js';
import { traceHash } from '../../../trace/hash.js';
import { MAST_MODES, mastCode } from '../../../trace/mast.js';
import type { Trace } from '../../../trace/model.js';
import { fitLogistic } from '../train/fit-logistic.js';
import { assignFolds, foldsOf } from '../train/folds.js';
import { stepInputs } from '../features/inputs.js';
import { logisticProbability } from '../scores/logistic.js';
import { agentModeFeatures, MODE_FEATURE_NAMES, modeFeatures } from './mode-features.js';
import { labelledModes, type ModeModel } from './mode-model.js';

/** Settings of the mode classifier's fit. */
export interface ModeTrainSettings {
  /** L2 penalty on standardised weights. */
  l2: number;
  /** Out-of-fold folds used to choose the thresholds. */
  folds: number;
  /** Fewest runs with a mode for it to be learned at all. */
  minPositives: number;
}

export const DEFAULT_MODE_SETTINGS: ModeTrainSettings = { l2: 0.5, folds: 5, minPositives: 5 };

/** A labelled run for the classifier: its feature row and its modes. */
export interface ModeExample {
  trace: Trace;
  row: readonly number[];
  modes: readonly string[];
}

/** Training examples of both mode classifiers. */
export interface ModeTrainingExamples {
  /** The runs labelled with modes: each run's row and its modes. */
  runs: ModeExample[];
  /**
   * The agents of the runs that label their faults per agent (injected faults): each agent's row
   * and its own modes (none for the agents that did nothing wrong).
   */
  agents: ModeExample[];
  /** How many runs label their faults per agent. */
  agentRuns: number;
}

/** The examples of both classifiers among `traces`, reading each run's steps once. */
export function modeTrainingExamples(traces: readonly Trace[]): ModeTrainingExamples {
  const examples: ModeTrainingExamples = { runs: [], agents: [], agentRuns: 0 };
  for (const trace of traces) {
    const modes = labelledModes(trace);
    if (!modes) continue;
    const stepRows = stepInputs(trace).rows;
    examples.runs.push({ trace, row: modeFeatures(trace, stepRows), modes });
    const faults = trace.labels?.faults ?? [];
    if (faults.length === 0) continue;
    examples.agentRuns += 1;
    const { agents, rows } = agentModeFeatures(trace, stepRows);
    agents.forEach((agent, index) => {
      const own = faults
        .filter((fault) => sameAgent(fault.agent, agent))
        .map((fault) => mastCode(fault.mode) ?? fault.mode);
      examples.agents.push({ trace, row: rows[index]!, modes: [...new Set(own)] });
    });
  }
  return examples;
}

/** Hits, false alarms and misses of predicted against labelled items, summed over runs. */
export interface SetCounts {
  hits: number;
  falsePositives: number;
  misses: number;
}

/** F1 of summed counts (0 without a hit). */
export const f1Of = ({ hits, falsePositives, misses }: SetCounts) =>
  hits === 0 ? 0 : (2 * hits) / (2 * hits + falsePositives + misses);

/** Adds one run's predicted and labelled items (each counted once) to `into`. */
export function addSetCounts(
  predicted: readonly string[],
  labelled: readonly string[],
  into: SetCounts,
): void {
  const truth = new Set(labelled);
  const named = new Set(predicted);
  for (const item of named)
    if (truth.has(item)) into.hits += 1;
    else into.falsePositives += 1;
  for (const item of truth) if (!named.has(item)) into.misses += 1;
}

/** Micro-F1 of thresholded probabilities against labels. */
function microF1(
  probabilities: readonly (readonly number[])[],
  labels: readonly (readonly boolean[])[],
  thresholds: readonly number[],
): number {
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  probabilities.forEach((row, index) =>
    row.forEach((probability, mode) => {
      const present = labels[index]![mode]!;
      if (probability >= thresholds[mode]!) {
        if (present) truePositives += 1;
        else falsePositives += 1;
      } else if (present) falseNegatives += 1;
    }),
  );
  return f1Of({ hits: truePositives, falsePositives, misses: falseNegatives });
}

/** Thresholds tried: 0.05 … 0.95, and 1.01 (never name the mode). */
const GRID = [...Array.from({ length: 37 }, (_, index) => 0.05 + index * 0.025), 1.01];

/**
 * Per-mode thresholds maximising micro-F1 over all modes, by coordinate ascent from the best
 * shared threshold (three passes over the modes; deterministic).
 */
export function chooseThresholds(
  probabilities: readonly (readonly number[])[],
  labels: readonly (readonly boolean[])[],
): number[] {
  const width = labels[0]?.length ?? 0;
  let shared = 0.5;
  let best = -1;
  for (const threshold of GRID) {
    const score = microF1(probabilities, labels, new Array<number>(width).fill(threshold));
    if (score > best + 1e-12) [best, shared] = [score, threshold];
  }
  const thresholds = new Array<number>(width).fill(shared);
  for (let pass = 0; pass < 3; pass += 1) {
    for (let mode = 0; mode < width; mode += 1) {
      for (const threshold of GRID) {
        const tried = [...thresholds];
        tried[mode] = threshold;
        const score = microF1(probabilities, labels, tried);
        if (score > best + 1e-12) [best, thresholds[mode]] = [score, threshold];
      }
    }
  }
  return thresholds.map((threshold) => Number(threshold.toFixed(3)));
}

/** The k most frequent modes, k chosen for the best micro-F1 on the same runs. */
export function frequentModes(labels: readonly (readonly string[])[]): string[] {
  const counts = new Map<string, number>();
  for (const modes of labels)
    for (const code of modes) counts.set(code, (counts.get(code) ?? 0) + 1);
  const ordered = [...counts]
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .map(([code]) => code);
  let best: string[] = [];
  let bestScore = -1;
  for (let k = 1; k <= ordered.length; k += 1) {
    const chosen = ordered.slice(0, k);
    const counts = { hits: 0, falsePositives: 0, misses: 0 };
    for (const modes of labels) addSetCounts(chosen, modes, counts);
    const score = f1Of(counts);
    if (score > bestScore + 1e-12) [bestScore, best] = [score, ordered.slice(0, k)];
  }
  return best.sort();
}

/**
 * Each mode's named-or-not decision held out: the out-of-fold probabilities of each fold's runs
 * against thresholds chosen on the other folds' out-of-fold probabilities (so no run picks its own
 * threshold), with precision, recall and F1 over all runs, and whether that F1 beats the constant
 * answer: always naming the mode (F1 2·rate / (1 + rate)) or never (0), whichever is higher.
 */
export function heldOutDecisions(
  probabilities: readonly (readonly number[])[],
  labels: readonly (readonly boolean[])[],
  assignment: readonly number[],
  folds: number,
): { precision: number; recall: number; f1: number; beatsConstant: boolean }[] {
  const width = labels[0]?.length ?? 0;
  const counts = Array.from({ length: width }, () => ({ hits: 0, falsePositives: 0, misses: 0 }));
  const indices = labels.map((_, index) => index);
  for (const { training, held } of foldsOf(indices, assignment, folds)) {
    if (held.length === 0 || training.length === 0) continue;
    const thresholds = chooseThresholds(
      training.map((index) => probabilities[index]!),
      training.map((index) => labels[index]!),
    );
    for (const index of held)
      for (let mode = 0; mode < width; mode += 1) {
        const named = probabilities[index]![mode]! >= thresholds[mode]!;
        const present = labels[index]![mode]!;
        if (named && present) counts[mode]!.hits += 1;
        else if (named) counts[mode]!.falsePositives += 1;
        else if (present) counts[mode]!.misses += 1;
      }
  }
  const fixed = (value: number) => Number(value.toFixed(3));
  return counts.map((count) => {
    const present = count.hits + count.misses;
    const rate = present / Math.max(1, labels.length);
    const f1 = f1Of(count);
    return {
      precision: fixed(count.hits / Math.max(1, count.hits + count.falsePositives)),
      recall: fixed(count.hits / Math.max(1, present)),
      f1: fixed(f1),
      beatsConstant: f1 > (2 * rate) / (1 + rate),
    };
  });
}

/** Fits one regression per learnable mode; `probability(row)` per mode, in `codes` order. */
function fitAll(examples: readonly ModeExample[], codes: readonly string[], l2: number) {
  return codes.map((code) =>
    fitLogistic(
      examples.map((example) => example.row),
      examples.map((example) => example.modes.includes(code)),
      l2,
    ),
  );
}

/** Trains the classifier on runs labelled with their modes. */
export function trainModeModel(
  examples: readonly ModeExample[],
  data: string[] = [],
  settings: ModeTrainSettings = DEFAULT_MODE_SETTINGS,
  featureNames: readonly string[] = MODE_FEATURE_NAMES,
): ModeModel {
  const codes = MAST_MODES.map((mode) => mode.code).filter(
    (code) =>
      examples.filter((example) => example.modes.includes(code)).length >= settings.minPositives,
  );
  const labels = examples.map((example) => codes.map((code) => example.modes.includes(code)));
  // Out-of-fold probabilities, folds grouped by task, choose the thresholds.
  const assignment = assignFolds(
    examples.map((example) => example.trace),
    settings.folds,
  );
  const outOfFold = examples.map(() => codes.map(() => 0));
  const indices = examples.map((_, index) => index);
  for (const { training, held } of foldsOf(indices, assignment, settings.folds)) {
    if (held.length === 0 || training.length === 0) continue;
    const fitted = fitAll(
      training.map((index) => examples[index]!),
      codes,
      settings.l2,
    );
    for (const index of held)
      outOfFold[index] = fitted.map((model) => logisticProbability(model, examples[index]!.row));
  }
  const thresholds = chooseThresholds(outOfFold, labels);
  const heldOut = heldOutDecisions(outOfFold, labels, assignment, settings.folds);
  const fitted = fitAll(examples, codes, settings.l2);
  const share = (index: number) =>
    labels.filter((row) => row[index]).length / Math.max(1, labels.length);
  return {
    features: [...featureNames],
    modes: codes.map((code, index) => ({
      code,
      ...fitted[index]!,
      threshold: thresholds[index]!,
      rate: Number(share(index).toFixed(4)),
      heldOut: heldOut[index]!,
    })),
    baseline: frequentModes(examples.map((example) => example.modes)),
    training: {
      traces: examples.length,
      l2: settings.l2,
      traceHashes: [...new Set(examples.map((example) => traceHash(example.trace)))].sort(),
      data,
    },
  };
}
