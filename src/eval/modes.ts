/**
 * Evaluating failure modes: per-mode precision, recall and F1, micro- and macro-F1 with bootstrap
 * intervals (traces resampled), and with injected-fault runs the (agent, mode) pairs as Aegis
 * scores them; each method next to the constant answer of the k most frequent training modes.
 * `offline` is the model file's classifier on runs it was not trained on; `offline-cv` trains one
 * per fold (folds grouped by task), so the shared data itself can be scored honestly. The figures
 * are computed in mode-metrics.ts.
 */
import {
  attributeWithModel,
  loadOfflineModel,
} from '../attribution/offline/attribute/attributor.js';
import { isLabelled } from '../attribution/offline/features/inputs.js';
import { labelledModes } from '../attribution/offline/modes/mode-model.js';
import type { OfflineModel } from '../attribution/offline/model/model-file.js';
import { assignFolds, foldsOf } from '../attribution/offline/train/folds.js';
import { trainModelFile } from '../attribution/offline/train/train-model-file.js';
import { canonicalAgentName } from '../trace/agents.js';
import { traceHash } from '../trace/hash.js';
import { mastCode } from '../trace/mast.js';
import type { Trace } from '../trace/model.js';
import { mostTalkativeSpeaker } from './baselines.js';
import { CROSS_VALIDATED_OFFLINE } from './constants.js';
import type { EvalRecord } from './result-store.js';
import { methodLabel } from './method-label.js';
import { summariseModes, type ModeMethodSummary, type ModePrediction } from './mode-metrics.js';

/** The failure-mode part of an evaluation report. */
export interface ModesSummary {
  rows: ModeMethodSummary[];
  /** Runs left out of `offline` because its classifier was trained on them. */
  excludedTrainingTraces: number;
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
