/**
 * The figures of failure-mode predictions (modes.ts makes them): per-mode precision, recall and
 * F1, micro- and macro-F1, and micro-F1 over (agent, mode) pairs, with bootstrap intervals (runs
 * resampled, seeded).
 */
import { addSetCounts, f1Of } from '../attribution/offline/modes/mode-training.js';
import { MAST_MODES, mastLabel } from '../trace/mast.js';
import { seededRandom, type Estimate } from './metrics.js';

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
