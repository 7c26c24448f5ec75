/**
 * The model card's table: cross-validated accuracy of the offline model per subset, with and
 * without the expected answer, next to baselines computed by the same code on the same folds.
 */
import { firstAgentStep, mostFrequentAgent, randomExpectation } from '../attribution/baselines.js';
import { assignFolds } from '../attribution/offline/folds.js';
import { isTrainable } from '../attribution/offline/inputs.js';
import type { TrainSettings } from '../attribution/offline/train.js';
import { DEFAULT_FOLD_SEEDS } from '../attribution/offline/settings.js';
import { sameAgent } from '../trace/agents.js';
import type { Trace } from '../trace/model.js';
import { subsetOf } from '../trace/subset.js';
import { crossValidateOffline } from './cross-validate.js';
import {
  agentCorrect,
  bySubset,
  estimate,
  stepCorrect,
  type Estimate,
  type Scored,
} from './metrics.js';

/** One row of the table. */
export interface ReportRow {
  subset: string;
  method: string;
  agent: Estimate;
  step: Estimate;
}

/** Options of the cross-validated report. */
export interface ReportOptions {
  folds?: number;
  seeds?: readonly number[];
  settings?: TrainSettings;
  onFold?: (done: number, total: number) => void;
}

type Keyed = Scored & { key: string };

function scoredOf(trace: Trace, agent: string | null, step: number | null): Keyed {
  return {
    key: `${trace.source ?? ''}#${trace.id}`,
    subset: subsetOf(trace),
    predictedAgent: agent,
    predictedStep: step,
    labelAgent: trace.labels?.agent,
    labelStep: trace.labels?.step,
  };
}

/**
 * Per-trace accuracy averaged over repeated fold seeds, so the bootstrap resamples traces (the
 * real unit of evidence) rather than treating each seed's copy of a trace as new data.
 */
function perTrace(items: readonly Keyed[], correct: (item: Keyed) => boolean): number[] {
  const sums = new Map<string, { hits: number; count: number }>();
  for (const item of items) {
    const entry = sums.get(item.key) ?? { hits: 0, count: 0 };
    entry.hits += correct(item) ? 1 : 0;
    entry.count += 1;
    sums.set(item.key, entry);
  }
  return [...sums.values()].map((entry) => entry.hits / entry.count);
}

/** Cross-validated rows for the offline model and the three baselines. */
export function crossValidationReport(
  traces: readonly Trace[],
  options: ReportOptions = {},
): ReportRow[] {
  const usable = traces.filter(isTrainable);
  const folds = options.folds ?? 5;
  const seeds = options.seeds ?? DEFAULT_FOLD_SEEDS;
  const rows: ReportRow[] = [];
  const add = (method: string, scored: Keyed[]) => {
    for (const [subset, items] of bySubset(scored)) {
      rows.push({
        subset,
        method,
        agent: estimate(
          perTrace(items, (item) => agentCorrect(item.predictedAgent, item.labelAgent)),
        ),
        step: estimate(perTrace(items, (item) => stepCorrect(item.predictedStep, item.labelStep))),
      });
    }
  };
  let done = 0;
  const total = folds * seeds.length * 2;
  const progress = () => options.onFold?.((done += 1), total);
  const base = {
    folds,
    seeds,
    ...(options.settings ? { settings: options.settings } : {}),
    onFold: progress,
  };
  for (const useGroundTruth of [true, false]) {
    const predictions = crossValidateOffline(usable, { ...base, useGroundTruth });
    add(
      `offline (${useGroundTruth ? 'with' : 'without'} ground truth)`,
      predictions.map((item) =>
        scoredOf(item.trace, item.attribution.agent, item.attribution.step),
      ),
    );
  }
  add(
    'first agent step',
    usable.map((trace) => {
      const step = firstAgentStep(trace);
      return scoredOf(trace, trace.steps[step]?.agent ?? '', step);
    }),
  );
  // Most frequent agent, learned per subset from the training folds only.
  const frequent: Keyed[] = [];
  for (const seed of seeds) {
    const assignment = assignFolds(usable, folds, seed);
    usable.forEach((trace, index) => {
      const training = usable.filter(
        (other, otherIndex) =>
          assignment[otherIndex] !== assignment[index] && subsetOf(other) === subsetOf(trace),
      );
      const agent = mostFrequentAgent(training) ?? '';
      const step = trace.steps.findIndex((candidate) => sameAgent(candidate.agent, agent));
      frequent.push(scoredOf(trace, agent, step === -1 ? firstAgentStep(trace) : step));
    });
  }
  add('most frequent agent', frequent);
  // Random: the exact expectation per trace, no sampling.
  for (const [subset, items] of bySubset(
    usable.map((trace) => ({ subset: subsetOf(trace), trace })),
  )) {
    const expectations = items.map((item) => randomExpectation(item.trace));
    rows.push({
      subset,
      method: 'random (expected)',
      agent: estimate(expectations.map((value) => value.agent)),
      step: estimate(expectations.map((value) => value.step)),
    });
  }
  return rows;
}

const cell = (value: Estimate) =>
  `${(value.value * 100).toFixed(1)}% [${(value.low * 100).toFixed(1)}, ${(value.high * 100).toFixed(1)}]`;

/** The rows as a Markdown table (accuracy with 95% bootstrap interval over traces). */
export function reportMarkdown(rows: readonly ReportRow[]): string {
  const lines = [
    '| subset | method | agent accuracy | step accuracy | n |',
    '|---|---|---|---|---|',
  ];
  for (const row of rows)
    lines.push(
      `| ${row.subset} | ${row.method} | ${cell(row.agent)} | ${cell(row.step)} | ${row.agent.n} |`,
    );
  return lines.join('\n');
}
