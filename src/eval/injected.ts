/**
 * The benchmark of a user's own system (faultline inject): on runs that carry an injection record
 * (`metadata.injection`: the injected mode and operator), every method's and baseline's accuracy
 * per injected mode and per operator, and one sentence saying which method to use on this system.
 * Runs that name their task's clean run (`Trace.reference`) are also scored with `diverge`, which
 * compares each with it; the sentence gives its figures apart, as it needs a passing run.
 */
import { isLabelled } from '../attribution/offline/features/inputs.js';
import { needsReference } from '../attribution/registry.js';
import { namesAnAgent } from '../trace/agents.js';
import { traceHash } from '../trace/hash.js';
import { mastLabel } from '../trace/mast.js';
import type { Trace } from '../trace/model.js';
import { baselineOutcomes, type FoldPlan } from './baselines.js';
import { methodLabel } from './method-label.js';
import { bySubset, summarise, summariseOutcomes, type Scored } from './metrics.js';
import { recordTraceKey, type EvalRecord } from './result-store.js';
import type { SummaryRow } from './summary-row.js';

/** The per-mode and per-operator figures of injected runs. */
export interface InjectedSummary {
  /** Rows as in the main table; `subset` is `all injected runs`, `mode 2.6 …` or `operator …`. */
  rows: SummaryRow[];
  /** Which method works best on these runs, in one sentence computed from the rows. */
  verdict: string;
}

/** The injected mode and operator of a run, read from `metadata.injection`. */
function injectionGroups(trace: Trace): string[] | undefined {
  const injection = trace.metadata.injection;
  if (injection === null || typeof injection !== 'object') return undefined;
  const { mode, operator } = injection as { mode?: unknown; operator?: unknown };
  if (typeof mode !== 'string' || typeof operator !== 'string') return undefined;
  return ['all injected runs', `mode ${mastLabel(mode)}`, `operator ${operator}`];
}

/** Whether a run carries an injection record (a run of `faultline inject`). */
export function carriesInjection(trace: Trace): boolean {
  return injectionGroups(trace) !== undefined;
}

const NO_USAGE = {
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  shortenedCalls: 0,
  millisecondsPerTrace: 0,
};

/** Figures per injected mode and operator, or undefined when no run carries an injection. */
export function summariseInjected(
  records: readonly EvalRecord[],
  traces: readonly Trace[],
  plan: FoldPlan,
): InjectedSummary | undefined {
  const labelled = traces.filter(isLabelled);
  const groupsOf = labelled.map(injectionGroups);
  if (!groupsOf.some((groups) => groups !== undefined)) return undefined;
  const byHash = new Map(labelled.map((trace, index) => [traceHash(trace), groupsOf[index]]));
  const rows: SummaryRow[] = [];

  const methods = new Map<string, EvalRecord[]>();
  for (const record of records.filter((item) => namesAnAgent(item.label))) {
    const key = `${record.method}\u0000${record.useGroundTruth}`;
    methods.set(key, [...(methods.get(key) ?? []), record]);
  }
  for (const group of methods.values()) {
    const { method, useGroundTruth } = group[0]!;
    const scored: Scored[] = group.flatMap((record) =>
      (byHash.get(record.traceKey) ?? []).map((subset) => ({
        subset,
        key: recordTraceKey(record),
        predictedAgent: record.predicted.agent,
        predictedStep: record.predicted.step,
        labelAgent: record.label.agent,
        ...(record.label.agents ? { labelAgents: record.label.agents } : {}),
        labelStep: record.label.step,
      })),
    );
    for (const [subset, items] of bySubset(scored)) {
      if (subset === 'overall') continue;
      rows.push({
        method,
        useGroundTruth,
        subset,
        baseline: false,
        accuracy: summarise(items),
        traces: new Set(items.map((item) => item.key)).size,
        ...NO_USAGE,
      });
    }
  }
  for (const { method, items } of baselineOutcomes(labelled, plan)) {
    const regrouped = items.flatMap((item) =>
      (groupsOf[Number(item.key)] ?? []).map((subset) => ({ ...item, subset })),
    );
    for (const [subset, group] of bySubset(regrouped)) {
      if (subset === 'overall') continue;
      rows.push({
        method,
        subset,
        baseline: true,
        accuracy: summariseOutcomes(group),
        traces: new Set(group.map((item) => item.key)).size,
        ...NO_USAGE,
      });
    }
  }
  return { rows, verdict: verdictOf(rows) };
}

const percent = (value: number) => `${(value * 100).toFixed(0)}%`;

/**
 * The sentence: the best method on all injected runs (agent accuracy, then step), against the best
 * baseline; then, where runs were compared with their clean run, what diverge found.
 */
function verdictOf(rows: readonly SummaryRow[]): string {
  const compared = rows.find(
    (row) => row.subset === 'all injected runs' && !row.baseline && needsReference(row.method),
  );
  const alone = verdictAlone(rows.filter((row) => !needsReference(row.method)));
  if (!compared) return alone;
  return `${alone} Compared with its task's clean run, ${compared.method} names the injected step in ${percent(compared.accuracy.step.value)} of ${compared.traces} runs (agent ${percent(compared.accuracy.agent.value)}).`;
}

/** The verdict among the methods that read a run alone, and the baselines. */
function verdictAlone(rows: readonly SummaryRow[]): string {
  const all = rows
    .filter((row) => row.subset === 'all injected runs')
    .sort(
      (left, right) =>
        right.accuracy.agent.value - left.accuracy.agent.value ||
        right.accuracy.step.value - left.accuracy.step.value,
    );
  const method = all.find((row) => !row.baseline);
  const baseline = all.find((row) => row.baseline);
  const name = (row: SummaryRow) =>
    row.baseline ? row.method : methodLabel(row.method, row.useGroundTruth);
  const figures = (row: SummaryRow) =>
    `agent ${percent(row.accuracy.agent.value)}, step ${percent(row.accuracy.step.value)}`;
  if (!method)
    return baseline
      ? `Only baselines were run on these ${baseline.traces} injected runs; the best is ${name(baseline)} (${figures(baseline)}).`
      : 'No injected run could be scored.';
  if (!baseline || method === all[0])
    return `On this system, use ${name(method)}: it names the injected fault best on ${method.traces} injected runs (${figures(method)})${baseline ? `, ahead of the best baseline, ${name(baseline)} (${figures(baseline)})` : ''}.`;
  return `On this system no method beats the baseline ${name(baseline)} (${figures(baseline)}) on ${baseline.traces} injected runs; the best method is ${name(method)} (${figures(method)}).`;
}
