/**
 * Evaluating failure modes: per-mode precision, recall and F1, micro- and macro-F1 with bootstrap
 * intervals (traces resampled), and with injected-fault runs the (agent, mode) pairs as Aegis
 * scores them; each method next to the constant answer of the k most frequent training modes.
 * `offline` is the model file's classifier on runs it was not trained on; `offline-cv` trains one
 * per fold (folds grouped by task), so the shared data itself can be scored honestly.
 */
import {
  attributeWithModel,
  loadOfflineModel,
} from '../attribution/offline/attribute/attributor.js';
import { isLabelled } from '../attribution/offline/features/inputs.js';
import { labelledModes } from '../attribution/offline/modes/mode-model.js';
import { addSetCounts, f1Of } from '../attribution/offline/modes/mode-training.js';
import type { OfflineModel } from '../attribution/offline/model/model-file.js';
import { assignFolds, foldsOf } from '../attribution/offline/train/folds.js';
import { trainModelFile } from '../attribution/offline/train/train-model-file.js';
import { canonicalAgentName } from '../trace/agents.js';
import { traceHash } from '../trace/hash.js';
import { MAST_MODES, mastCode, mastLabel } from '../trace/mast.js';
import type { Trace } from '../trace/model.js';
import { mostTalkativeSpeaker } from './baselines.js';
import { CROSS_VALIDATED_OFFLINE } from './constants.js';
import { seededRandom, type Estimate } from './metrics.js';
import type { EvalRecord } from './result-store.js';
import { methodLabel } from './method-label.js';

/** One run's predicted and labelled modes (and agent-mode pairs, when the run labels faults). */
export interface ModePrediction {
  predicted: readonly string[];
  labelled: readonly string[];
  predictedPairs?: readonly string[];
  labelledPairs?: readonly string[];
}

/** One mode's figures. */
export interface ModeScore {
  code: string;
  label: string;
  /** Runs labelled with the mode. */
  support: number;
  precision: number;
  recall: number;
  f1: number;
}

/** A method's (or baseline's) mode figures. */
export interface ModeMethodSummary {
  method: string;
  traces: number;
  micro: Estimate;
  /** Mean F1 over the modes that some evaluated run is labelled with. */
  macro: Estimate;
  /** Micro-F1 over (agent, mode) pairs, on runs that label their faults per agent. */
  pairs?: Estimate;
  perMode: ModeScore[];
}

/** The failure-mode part of an evaluation report. */
export interface ModesSummary {
  rows: ModeMethodSummary[];
  /** Runs left out of `offline` because its classifier was trained on them. */
  excludedTrainingTraces: number;
}

/** Micro-F1 of the runs at `indices`. */
function microOf(
  items: readonly ModePrediction[],
  indices: readonly number[],
  pairs = false,
): number {
  const counts = { hits: 0, falsePositives: 0, misses: 0 };
  for (const index of indices) {
    const item = items[index]!;
    if (pairs) addSetCounts(item.predictedPairs ?? [], item.labelledPairs ?? [], counts);
    else addSetCounts(item.predicted, item.labelled, counts);
  }
  return f1Of(counts);
}

/** Per-mode figures of the runs at `indices`. */
function perModeOf(items: readonly ModePrediction[], indices: readonly number[]): ModeScore[] {
  return MAST_MODES.map(({ code }) => {
    const counts = { hits: 0, falsePositives: 0, misses: 0 };
    for (const index of indices) {
      const item = items[index]!;
      addSetCounts(
        item.predicted.filter((found) => found === code),
        item.labelled.filter((found) => found === code),
        counts,
      );
    }
    const support = counts.hits + counts.misses;
    return {
      code,
      label: mastLabel(code),
      support,
      precision:
        counts.hits + counts.falsePositives === 0
          ? 0
          : counts.hits / (counts.hits + counts.falsePositives),
      recall: support === 0 ? 0 : counts.hits / support,
      f1: f1Of(counts),
    };
  });
}

function macroOf(items: readonly ModePrediction[], indices: readonly number[]): number {
  const present = perModeOf(items, indices).filter((score) => score.support > 0);
  return present.length === 0
    ? 0
    : present.reduce((sum, score) => sum + score.f1, 0) / present.length;
}

/** A statistic with its 95% percentile bootstrap interval, runs resampled (seeded). */
function bootstrap(
  count: number,
  statistic: (indices: readonly number[]) => number,
  resamples = 1000,
): Estimate {
  const all = Array.from({ length: count }, (_, index) => index);
  const value = statistic(all);
  if (count === 0) return { value: 0, low: 0, high: 0, n: 0 };
  const random = seededRandom(20250501);
  const values = new Float64Array(resamples);
  for (let round = 0; round < resamples; round += 1) {
    const drawn = all.map(() => Math.floor(random() * count));
    values[round] = statistic(drawn);
  }
  values.sort();
  return {
    value,
    low: values[Math.floor(0.025 * (resamples - 1))]!,
    high: values[Math.ceil(0.975 * (resamples - 1))]!,
    n: count,
  };
}

/** The figures of one method's predictions. */
export function summariseModes(
  method: string,
  items: readonly ModePrediction[],
): ModeMethodSummary {
  const all = items.map((_, index) => index);
  const paired = items.flatMap((item, index) => (item.labelledPairs ? [index] : []));
  return {
    method,
    traces: items.length,
    micro: bootstrap(items.length, (indices) => microOf(items, indices)),
    macro: bootstrap(items.length, (indices) => macroOf(items, indices)),
    ...(paired.length > 0
      ? {
          pairs: bootstrap(paired.length, (indices) =>
            microOf(
              items,
              indices.map((index) => paired[index]!),
              true,
            ),
          ),
        }
      : {}),
    perMode: perModeOf(items, all),
  };
}

const pair = (agent: string, mode: string) => `${canonicalAgentName(agent).toLowerCase()}|${mode}`;

/** The (agent, mode) pairs a run labels, when it labels faults per agent. */
function labelledPairsOf(trace: Trace): string[] | undefined {
  const faults = trace.labels?.faults;
  if (!faults || faults.length === 0) return undefined;
  return [...new Set(faults.map((fault) => pair(fault.agent, mastCode(fault.mode) ?? fault.mode)))];
}

/**
 * A run's modes as predicted against its labels; the pairs are the per-agent modes when the method
 * names them, else the named agent with each mode.
 */
function predictionOf(
  trace: Trace,
  predicted: readonly string[],
  agent: string | null,
  agentModes?: readonly { agent: string; modes: readonly { code: string }[] }[],
): ModePrediction {
  const labelledPairs = labelledPairsOf(trace);
  const predictedPairs = agentModes
    ? agentModes.flatMap((entry) => entry.modes.map((mode) => pair(entry.agent, mode.code)))
    : agent === null
      ? []
      : predicted.map((mode) => pair(agent, mode));
  return {
    predicted,
    labelled: labelledModes(trace)!,
    ...(labelledPairs ? { labelledPairs, predictedPairs } : {}),
  };
}

/** A run's prediction under a model, and under the constant answer `baseline`. */
function predictionsOf(trace: Trace, model: OfflineModel, baseline: readonly string[]) {
  const result = attributeWithModel(trace, model);
  return {
    method: predictionOf(
      trace,
      (result.modes ?? []).map((mode) => mode.code),
      result.agent,
      result.agentModes,
    ),
    baseline: predictionOf(trace, baseline, mostTalkativeSpeaker(trace)),
  };
}

/** What to evaluate. */
export interface ModeEvalOptions {
  methods: readonly string[];
  modelPath?: string;
  includeTrain?: boolean;
  /** Folds and seed of `offline-cv` (the first seed). */
  folds: number;
  seed: number;
  /** The run's evaluation records: methods other than the offline ones are scored from them. */
  records?: readonly EvalRecord[];
}

const baselineName = (method: string) => `k most frequent modes (for ${method})`;

/**
 * The modes other methods (LLM methods) named, from their evaluation records, per method and
 * setting, each next to the constant answer of the offline model's classifier (its k most frequent
 * training modes), when it has one.
 */
function recordedModes(
  labelled: readonly Trace[],
  records: readonly EvalRecord[],
  modelPath: string | undefined,
): ModeMethodSummary[] {
  const byKey = new Map(labelled.map((trace) => [traceHash(trace), trace]));
  const groups = new Map<string, { method: EvalRecord; items: [Trace, EvalRecord][] }>();
  for (const record of records) {
    const trace = byKey.get(record.traceKey);
    if (!trace || record.predicted.modes === undefined) continue;
    const label = methodLabel(record.method, record.useGroundTruth);
    if (!groups.has(label)) groups.set(label, { method: record, items: [] });
    groups.get(label)!.items.push([trace, record]);
  }
  if (groups.size === 0) return [];
  const constant = loadOfflineModel(modelPath).modes?.baseline;
  const rows: ModeMethodSummary[] = [];
  for (const [label, { items }] of groups) {
    const predictions = items.map(([trace, record]) =>
      predictionOf(trace, record.predicted.modes!, record.predicted.agent),
    );
    rows.push(summariseModes(label, predictions));
    if (constant)
      rows.push(
        summariseModes(
          baselineName(label),
          items.map(([trace]) => predictionOf(trace, constant, mostTalkativeSpeaker(trace))),
        ),
      );
  }
  return rows;
}

/**
 * Failure-mode figures of `offline` and `offline-cv` (computed here) and of the methods whose
 * records name modes, on the runs labelled with modes, each next to its constant baseline;
 * undefined when no run is labelled with modes.
 */
export function evaluateModes(
  traces: readonly Trace[],
  options: ModeEvalOptions,
): ModesSummary | undefined {
  const labelled = traces.filter((trace) => labelledModes(trace) !== undefined);
  if (labelled.length === 0) return undefined;
  const rows: ModeMethodSummary[] = [];
  let excluded = 0;
  if (options.methods.includes('offline')) {
    const model = loadOfflineModel(options.modelPath);
    if (model.modes) {
      const trained = new Set(options.includeTrain ? [] : model.modes.training.traceHashes);
      const evaluated = labelled.filter((trace) => !trained.has(traceHash(trace)));
      excluded = labelled.length - evaluated.length;
      const predictions = evaluated.map((trace) =>
        predictionsOf(trace, model, model.modes!.baseline),
      );
      if (predictions.length > 0)
        rows.push(
          summariseModes(
            'offline',
            predictions.map((item) => item.method),
          ),
          summariseModes(
            baselineName('offline'),
            predictions.map((item) => item.baseline),
          ),
        );
    }
  }
  if (options.methods.includes(CROSS_VALIDATED_OFFLINE)) {
    const assignment = assignFolds(labelled, options.folds, options.seed);
    const method: ModePrediction[] = [];
    const baseline: ModePrediction[] = [];
    for (const { training, held } of foldsOf(labelled, assignment, options.folds)) {
      if (held.length === 0 || training.length === 0) continue;
      // The agent of each pair comes from scorers trained on the same fold, when they can be;
      // else the model file's stand in.
      const model = trainModelFile(training, {
        modes: { runs: training, minRuns: 1 },
        ...(training.filter(isLabelled).length >= 2
          ? { parts: ['scorers', 'modes'] }
          : { parts: ['modes'], keep: loadOfflineModel(options.modelPath) }),
      });
      const constant = model.modes!.baseline;
      for (const trace of held) {
        const { method: predicted, baseline: fixed } = predictionsOf(trace, model, constant);
        method.push(predicted);
        baseline.push(fixed);
      }
    }
    rows.push(
      summariseModes(CROSS_VALIDATED_OFFLINE, method),
      summariseModes(baselineName(CROSS_VALIDATED_OFFLINE), baseline),
    );
  }
  if (options.records) rows.push(...recordedModes(labelled, options.records, options.modelPath));
  return { rows, excludedTrainingTraces: excluded };
}
