/**
 * Accuracy metrics with honest matching: a step is right only when the integer equals the label.
 * The original evaluation's lenient rule (the label's digits appear anywhere in the prediction,
 * so true 1 / predicted 10 counts) is kept apart, clearly named, for comparison with published
 * figures. Confidence intervals are percentile bootstraps with a seeded generator.
 */
import { namesResponsible } from '../trace/agents.js';

/** One prediction next to its labels. */
export interface Scored {
  subset: string;
  /**
   * The trace this prediction is for. Predictions sharing a key (one per fold seed) are averaged
   * into one outcome before bootstrapping: the trace, not its copies, is the unit of evidence.
   */
  key?: string;
  /** null when the method could not tell (an unreadable reply): never correct. */
  predictedAgent: string | null;
  predictedStep: number | null;
  labelAgent: string | undefined;
  /** Every responsible agent when the run has several; naming any of them is right. */
  labelAgents?: readonly string[];
  /** undefined when the trace has no step label: step measures then leave it out. */
  labelStep: number | undefined;
}

/** Exact agent match, case- and separator-insensitive; with several responsible agents, any. */
export function agentCorrect(
  predicted: string | null,
  label: string | undefined,
  labels?: readonly string[],
): boolean {
  return namesResponsible(predicted, {
    ...(label !== undefined ? { agent: label } : {}),
    ...(labels ? { agents: [...labels] } : {}),
  });
}

/** Exact integer step match. */
export function stepCorrect(predicted: number | null, label: number | undefined): boolean {
  return (
    predicted !== null && label !== undefined && Number.isInteger(predicted) && predicted === label
  );
}

/** Step within ±tolerance of the label. */
export function stepWithin(
  predicted: number | null,
  label: number | undefined,
  tolerance: number,
): boolean {
  return predicted !== null && label !== undefined && Math.abs(predicted - label) <= tolerance;
}

/** The original script's rule: the label's text occurs inside the prediction's text. */
export function lenientStepMatch(
  predicted: number | string | null,
  label: number | undefined,
): boolean {
  return predicted !== null && label !== undefined && String(predicted).includes(String(label));
}

/** A small seeded generator (mulberry32): reproducible bootstrap resamples. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** A proportion with its 95% bootstrap interval. */
export interface Estimate {
  value: number;
  low: number;
  high: number;
  n: number;
}

/** Mean of 0/1 (or fractional, for expectations) outcomes with a percentile bootstrap 95% interval. */
export function estimate(
  outcomes: readonly number[],
  options: { resamples?: number; seed?: number } = {},
): Estimate {
  const n = outcomes.length;
  if (n === 0) return { value: 0, low: 0, high: 0, n: 0 };
  const mean = outcomes.reduce((sum, value) => sum + value, 0) / n;
  const random = seededRandom(options.seed ?? 20250501);
  const resamples = options.resamples ?? 2000;
  const means = new Float64Array(resamples);
  for (let round = 0; round < resamples; round += 1) {
    let total = 0;
    for (let draw = 0; draw < n; draw += 1) total += outcomes[Math.floor(random() * n)]!;
    means[round] = total / n;
  }
  means.sort();
  return {
    value: mean,
    low: means[Math.floor(0.025 * (resamples - 1))]!,
    high: means[Math.ceil(0.975 * (resamples - 1))]!,
    n,
  };
}

/** The accuracies reported for one method on one set of traces. */
export interface AccuracySummary {
  agent: Estimate;
  step: Estimate;
  stepWithin1: Estimate;
  stepWithin3: Estimate;
  /** The original evaluation's substring rule, for comparison with published figures only. */
  stepLenient: Estimate;
}

/**
 * One trace's outcome under each accuracy: 0 or 1, or a fraction for averages and expectations;
 * step measures are undefined for a trace without a step label, which they then leave out.
 */
export interface Outcomes {
  agent: number;
  step: number | undefined;
  stepWithin1: number | undefined;
  stepWithin3: number | undefined;
  stepLenient: number | undefined;
}

/** The outcomes of one prediction. */
export function outcomesOf(item: Scored): Outcomes {
  const hit = (correct: boolean) => (correct ? 1 : 0);
  const stepped = item.labelStep !== undefined;
  return {
    agent: hit(agentCorrect(item.predictedAgent, item.labelAgent, item.labelAgents)),
    step: stepped ? hit(stepCorrect(item.predictedStep, item.labelStep)) : undefined,
    stepWithin1: stepped ? hit(stepWithin(item.predictedStep, item.labelStep, 1)) : undefined,
    stepWithin3: stepped ? hit(stepWithin(item.predictedStep, item.labelStep, 3)) : undefined,
    stepLenient: stepped ? hit(lenientStepMatch(item.predictedStep, item.labelStep)) : undefined,
  };
}

/**
 * Accuracies of per-trace outcomes. Items sharing a key are averaged first, so repeated fold seeds
 * tighten the estimate of each trace without counting it twice in the bootstrap.
 */
export function summariseOutcomes(
  items: readonly { key?: string; outcomes: Outcomes }[],
  seed?: number,
): AccuracySummary {
  const groups = new Map<string | number, Outcomes[]>();
  items.forEach((item, index) => {
    const key = item.key ?? index;
    const group = groups.get(key);
    if (group) group.push(item.outcomes);
    else groups.set(key, [item.outcomes]);
  });
  const options = seed === undefined ? {} : { seed };
  const of = (measure: keyof AccuracySummary) => {
    const perTrace: number[] = [];
    for (const group of groups.values()) {
      const values = group
        .map((outcomes) => outcomes[measure])
        .filter((value) => value !== undefined);
      if (values.length > 0)
        perTrace.push(values.reduce((sum, value) => sum + value, 0) / values.length);
    }
    return estimate(perTrace, options);
  };
  return {
    agent: of('agent'),
    step: of('step'),
    stepWithin1: of('stepWithin1'),
    stepWithin3: of('stepWithin3'),
    stepLenient: of('stepLenient'),
  };
}

/** Accuracies of a list of scored predictions (averaged per trace key first, when keys repeat). */
export function summarise(scored: readonly Scored[], seed?: number): AccuracySummary {
  return summariseOutcomes(
    scored.map((item) => ({
      ...(item.key === undefined ? {} : { key: item.key }),
      outcomes: outcomesOf(item),
    })),
    seed,
  );
}

/** Groups scored items by subset, with an `overall` group. */
export function bySubset<Item extends { subset: string }>(
  items: readonly Item[],
): Map<string, Item[]> {
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    if (!groups.has(item.subset)) groups.set(item.subset, []);
    groups.get(item.subset)!.push(item);
  }
  const sorted = new Map(
    [...groups.entries()].sort((left, right) => left[0].localeCompare(right[0])),
  );
  if (sorted.size > 1) sorted.set('overall', [...items]);
  return sorted;
}
