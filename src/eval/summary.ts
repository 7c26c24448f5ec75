/**
 * Turns evaluation records into the report's numbers: accuracy with intervals per method, setting
 * and subset; the baselines on the same traces; usage and time; the predicted-minus-true histogram.
 */
import { firstAgentStep, mostFrequentAgent, randomCandidates } from '../attribution/baselines.js';
import { isTrainable } from '../attribution/offline/inputs.js';
import { sameAgent } from '../trace/agents.js';
import type { Trace } from '../trace/model.js';
import { subsetOf } from '../trace/subset.js';
import {
  bySubset,
  estimate,
  lenientStepMatch,
  summarise,
  type AccuracySummary,
  type Scored,
} from './metrics.js';
import type { EvalRecord } from './store.js';
import type { EvalRunInfo } from './run-eval.js';

/** One row of the report. */
export interface SummaryRow {
  method: string;
  /** undefined for baselines, which do not read the answer. */
  useGroundTruth?: boolean;
  subset: string;
  baseline: boolean;
  accuracy: AccuracySummary;
  traces: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  millisecondsPerTrace: number;
}

/** The whole report. */
export interface EvalSummary {
  generatedAt: string;
  rows: SummaryRow[];
  /** predicted step − true step, counted per method label. */
  stepErrors: Record<string, Record<string, number>>;
  info: EvalRunInfo;
  records: EvalRecord[];
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

/** A method's label in tables: `offline (with GT)`. */
export function methodLabel(method: string, useGroundTruth?: boolean): string {
  return useGroundTruth === undefined
    ? method
    : `${method} (${useGroundTruth ? 'with' : 'without'} GT)`;
}

function scoredOf(record: EvalRecord): Scored {
  return {
    subset: record.subset,
    predictedAgent: record.predicted.agent,
    predictedStep: record.predicted.step,
    labelAgent: record.label.agent,
    labelStep: record.label.step,
  };
}

/** Exact expected accuracies of a uniform random guess (no sampling). */
function randomExpected(trace: Trace): {
  agent: number;
  step: number;
  within1: number;
  within3: number;
  lenient: number;
} {
  const candidates = randomCandidates(trace);
  const label = trace.labels?.step;
  const share = (hit: (step: number) => boolean) =>
    label === undefined ? 0 : candidates.filter(hit).length / candidates.length;
  const agents = [...new Set(candidates.map((index) => trace.steps[index]!.agent))];
  const labelAgent = trace.labels?.agent;
  return {
    agent:
      labelAgent && agents.some((agent) => sameAgent(agent, labelAgent)) ? 1 / agents.length : 0,
    step: share((step) => step === label),
    within1: share((step) => Math.abs(step - label!) <= 1),
    within3: share((step) => Math.abs(step - label!) <= 3),
    lenient: share((step) => lenientStepMatch(step, label)),
  };
}

function usageRow(records: readonly EvalRecord[]) {
  const sum = (pick: (record: EvalRecord) => number) =>
    records.reduce((total, record) => total + pick(record), 0);
  return {
    traces: records.length,
    calls: sum((record) => record.usage.calls),
    inputTokens: sum((record) => record.usage.inputTokens),
    outputTokens: sum((record) => record.usage.outputTokens),
    costUsd: Number(sum((record) => record.usage.costUsd ?? 0).toFixed(6)),
    millisecondsPerTrace:
      records.length > 0
        ? Number((sum((record) => record.milliseconds) / records.length).toFixed(3))
        : 0,
  };
}

const NO_USAGE_ROW = {
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  millisecondsPerTrace: 0,
};

/** Builds the report from this run's records and the traces they came from. */
export function summariseEvaluation(
  records: readonly EvalRecord[],
  traces: readonly Trace[],
  info: EvalRunInfo,
): EvalSummary {
  const rows: SummaryRow[] = [];
  const groups = new Map<string, EvalRecord[]>();
  for (const record of records) {
    const key = `${record.method}\u0000${record.useGroundTruth}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(record);
  }
  const stepErrors: EvalSummary['stepErrors'] = {};
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
  }

  const labelled = traces.filter(isTrainable);
  const baseline = (method: string, scored: Scored[]) => {
    for (const [subset, items] of bySubset(scored))
      rows.push({
        method,
        subset,
        baseline: true,
        accuracy: summarise(items),
        traces: items.length,
        ...NO_USAGE_ROW,
      });
  };
  const scored = (trace: Trace, agent: string, step: number): Scored => ({
    subset: subsetOf(trace),
    predictedAgent: agent,
    predictedStep: step,
    labelAgent: trace.labels?.agent,
    labelStep: trace.labels?.step,
  });
  baseline(
    'first agent step',
    labelled.map((trace) =>
      scored(trace, trace.steps[firstAgentStep(trace)]?.agent ?? '', firstAgentStep(trace)),
    ),
  );
  const frequentBySubset = new Map(
    [...bySubset(labelled.map((trace) => ({ subset: subsetOf(trace), trace })))].map(
      ([subset, items]) => [subset, mostFrequentAgent(items.map((item) => item.trace)) ?? ''],
    ),
  );
  baseline(
    'most frequent agent (in-sample)',
    labelled.map((trace) => {
      const agent = frequentBySubset.get(subsetOf(trace)) ?? '';
      const step = trace.steps.findIndex((candidate) => sameAgent(candidate.agent, agent));
      return scored(trace, agent, step === -1 ? firstAgentStep(trace) : step);
    }),
  );
  for (const [subset, items] of bySubset(
    labelled.map((trace) => ({ subset: subsetOf(trace), trace })),
  )) {
    const expectations = items.map((item) => randomExpected(item.trace));
    const of = (pick: (value: ReturnType<typeof randomExpected>) => number) =>
      estimate(expectations.map(pick));
    rows.push({
      method: 'random (expected)',
      subset,
      baseline: true,
      accuracy: {
        agent: of((value) => value.agent),
        step: of((value) => value.step),
        stepWithin1: of((value) => value.within1),
        stepWithin3: of((value) => value.within3),
        stepLenient: of((value) => value.lenient),
      },
      traces: items.length,
      ...NO_USAGE_ROW,
    });
  }
  return { generatedAt: new Date().toISOString(), rows, stepErrors, info, records: [...records] };
}
