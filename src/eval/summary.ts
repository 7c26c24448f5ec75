/**
 * Turns evaluation records into the report's numbers: accuracy with intervals per method, setting
 * and subset; the baselines on the same traces; usage and time; the predicted-minus-true histogram.
 */
import { isLabelled } from '../attribution/offline/features/inputs.js';
import { namesAnAgent } from '../trace/agents.js';
import type { Trace } from '../trace/model.js';
import { baselineOutcomes } from './baselines.js';
import { calibrationOf, type Calibration } from './calibration.js';
import {
  agentCorrect,
  bySubset,
  stepCorrect,
  summarise,
  summariseOutcomes,
  type Scored,
} from './metrics.js';
import { recordTraceKey, type EvalRecord } from './result-store.js';
import type { SummaryRow } from './summary-row.js';

export type { SummaryRow } from './summary-row.js';
import type { EvalRunInfo } from './run-eval.js';
import { methodLabel } from './method-label.js';
import type { ModesSummary } from './modes.js';
import type { InjectedSummary } from './injected.js';

/** The whole report. */
export interface EvalSummary {
  generatedAt: string;
  rows: SummaryRow[];
  /** predicted step − true step, counted per method label. */
  stepErrors: Record<string, Record<string, number>>;
  /** How well stated confidences match accuracy, per method label, where the method states them. */
  calibration: Record<string, MethodCalibration>;
  /** The same per subset (method label, then subset), so a subset's overstatement shows. */
  calibrationBySubset: Record<string, Record<string, MethodCalibration>>;
  info: EvalRunInfo;
  records: EvalRecord[];
  /** Failure-mode figures, when some traces are labelled with MAST modes (modes.ts). */
  modes?: ModesSummary;
  /** Per injected mode and operator, when runs carry an injection (faultline inject; injected.ts). */
  injected?: InjectedSummary;
}

/** A prediction as table text: `WebSurfer @ 12`, or why there is none. */
export function predictionText(record: EvalRecord): string {
  if (record.predicted.step === null || record.predicted.agent === null)
    return record.predicted.unparsed ? '(unreadable reply)' : '(none found)';
  return `${record.predicted.agent} @ ${record.predicted.step}`;
}

/** One row per method and setting with its totals: the `overall` row, or the only subset's row. */
export function methodTotals(rows: readonly SummaryRow[]): SummaryRow[] {
  return rows.filter(
    (row) =>
      !row.baseline &&
      (row.subset === 'overall' ||
        !rows.some(
          (other) =>
            other.method === row.method &&
            other.useGroundTruth === row.useGroundTruth &&
            other.subset === 'overall',
        )),
  );
}

/** A record's spend as table text: calls, tokens, cost and time. */
export function spendText(record: EvalRecord): {
  calls: string;
  tokens: string;
  cost: string;
  milliseconds: string;
} {
  const { usage } = record;
  return {
    calls: String(usage.calls),
    tokens: `${usage.inputTokens} / ${usage.outputTokens}`,
    cost: usage.costUsd === undefined ? '–' : `$${usage.costUsd.toFixed(4)}`,
    milliseconds: record.milliseconds.toFixed(1),
  };
}

function scoredOf(record: EvalRecord): Scored {
  return {
    subset: record.subset,
    key: recordTraceKey(record),
    predictedAgent: record.predicted.agent,
    predictedStep: record.predicted.step,
    labelAgent: record.label.agent,
    ...(record.label.agents ? { labelAgents: record.label.agents } : {}),
    labelStep: record.label.step,
  };
}

function usageRow(records: readonly EvalRecord[]) {
  const sum = (pick: (record: EvalRecord) => number) =>
    records.reduce((total, record) => total + pick(record), 0);
  // Cross-validated runs hold one record per trace and fold seed: count and time traces.
  const traces = new Set(records.map(recordTraceKey)).size;
  return {
    traces,
    calls: sum((record) => record.usage.calls),
    inputTokens: sum((record) => record.usage.inputTokens),
    outputTokens: sum((record) => record.usage.outputTokens),
    costUsd: Number(sum((record) => record.usage.costUsd ?? 0).toFixed(6)),
    shortenedCalls: sum((record) => record.usage.shortenedCalls ?? 0),
    millisecondsPerTrace:
      traces > 0 ? Number((sum((record) => record.milliseconds) / traces).toFixed(3)) : 0,
  };
}

const NO_USAGE_ROW = {
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  shortenedCalls: 0,
  millisecondsPerTrace: 0,
};

/** Calibration of a method's agent confidence and step confidence. */
export interface MethodCalibration {
  agent?: Calibration;
  /**
   * Agent confidence on the runs with one responsible agent, where "the chance that the named
   * agent is the responsible one" is what is stated; present only when some runs have several
   * (there naming any of them is right, far more often than stated).
   */
  agentSingleCause?: Calibration;
  step?: Calibration;
}

/** How well a method's stated confidences match how often it is right, on its records. */
export function calibrationOfRecords(records: readonly EvalRecord[]): MethodCalibration {
  const judgedAgent = (record: EvalRecord) =>
    record.predicted.agentConfidence === undefined
      ? []
      : [
          {
            confidence: record.predicted.agentConfidence,
            correct: agentCorrect(record.predicted.agent, record.label.agent, record.label.agents),
          },
        ];
  const agent = calibrationOf(records.flatMap(judgedAgent));
  const severalCauses = (record: EvalRecord) => (record.label.agents?.length ?? 0) > 1;
  const agentSingleCause = records.some(severalCauses)
    ? calibrationOf(records.filter((record) => !severalCauses(record)).flatMap(judgedAgent))
    : undefined;
  const step = calibrationOf(
    records.flatMap((record) =>
      record.predicted.confidence === undefined || record.label.step === undefined
        ? []
        : [
            {
              confidence: record.predicted.confidence,
              correct: stepCorrect(record.predicted.step, record.label.step),
            },
          ],
    ),
  );
  return {
    ...(agent ? { agent } : {}),
    ...(agentSingleCause ? { agentSingleCause } : {}),
    ...(step ? { step } : {}),
  };
}

/** Builds the report from this run's records and the traces they came from. */
export function summariseEvaluation(
  records: readonly EvalRecord[],
  traces: readonly Trace[],
  info: EvalRunInfo,
): EvalSummary {
  const rows: SummaryRow[] = [];
  const groups = new Map<string, EvalRecord[]>();
  // Records of runs labelled with failure modes only are scored in the modes section (modes.ts).
  for (const record of records.filter((item) => namesAnAgent(item.label))) {
    const key = `${record.method}\u0000${record.useGroundTruth}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(record);
  }
  const stepErrors: EvalSummary['stepErrors'] = {};
  const calibration: EvalSummary['calibration'] = {};
  const calibrationBySubset: EvalSummary['calibrationBySubset'] = {};
  for (const group of groups.values()) {
    const { method, useGroundTruth } = group[0]!;
    for (const [subset, items] of bySubset(group)) {
      rows.push({
        method,
        useGroundTruth,
        subset,
        baseline: false,
        accuracy: summarise(items.map(scoredOf)),
        ...usageRow(items),
      });
    }
    const histogram: Record<string, number> = {};
    for (const record of group) {
      if (record.label.step === undefined || record.predicted.step === null) continue;
      const difference = String(record.predicted.step - record.label.step);
      histogram[difference] = (histogram[difference] ?? 0) + 1;
    }
    stepErrors[methodLabel(method, useGroundTruth)] = histogram;
    const calibrated = calibrationOfRecords(group);
    if (calibrated.agent || calibrated.step) {
      const label = methodLabel(method, useGroundTruth);
      calibration[label] = calibrated;
      calibrationBySubset[label] = Object.fromEntries(
        [...bySubset(group)].map(([subset, items]) => [subset, calibrationOfRecords(items)]),
      );
    }
  }

  // Baselines on every labelled trace, learned ones on the same folds as `offline-cv`.
  for (const { method, items } of baselineOutcomes(traces.filter(isLabelled), info.plan)) {
    for (const [subset, group] of bySubset(items)) {
      rows.push({
        method,
        subset,
        baseline: true,
        accuracy: summariseOutcomes(group),
        traces: new Set(group.map((item) => item.key)).size,
        ...NO_USAGE_ROW,
      });
    }
  }
  return {
    generatedAt: new Date().toISOString(),
    rows,
    stepErrors,
    calibration,
    calibrationBySubset,
    info,
    records: [...records],
  };
}
