/**
 * How cross-validated figures are drawn: k folds grouped by question (a question's runs never
 * straddle training and test) repeated over seeds, or leave-one-system-out, where each system
 * (the importer's subset label, or the folder of the runs) is predicted by a model trained on the
 * others: the measure of how the model does on a system it has never seen.
 */
import { assignFolds } from '../attribution/offline/train/folds.js';
import { UserError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import { subsetOf } from '../trace/subset.js';

/** Folds and the seeds of their assignments. */
export interface FoldPlan {
  /** `question` (default): k folds grouped by question; `system`: one fold per system. */
  by?: 'question' | 'system';
  /** Folds when grouped by question. */
  folds: number;
  /** Fold seeds when grouped by question; each seed is a full k-fold run. */
  seeds: readonly number[];
}

/** The systems of a set of traces, sorted: one fold each when leaving one system out. */
export function systemsOf(traces: readonly Trace[]): string[] {
  return [...new Set(traces.map(subsetOf))].sort();
}

/** How many folds a plan draws over these traces. */
export function foldCount(traces: readonly Trace[], plan: FoldPlan): number {
  return plan.by === 'system' ? systemsOf(traces).length : plan.folds;
}

/** The seeds a plan repeats over (leave-one-system-out has nothing to reshuffle: one pass). */
export function seedsOf(plan: FoldPlan): readonly number[] {
  return plan.by === 'system' ? [0] : plan.seeds;
}

/** Fold index of each trace under a plan and seed. */
export function assignFoldsFor(traces: readonly Trace[], plan: FoldPlan, seed: number): number[] {
  if (plan.by !== 'system') return assignFolds(traces, plan.folds, seed);
  const systems = systemsOf(traces);
  if (systems.length < 2)
    throw new UserError(
      `leaving one system out needs runs of at least two systems; found ${systems.length === 1 ? `only ${systems[0]}` : 'none'} (systems are the importer's subsets or the folders of the runs)`,
    );
  return traces.map((trace) => systems.indexOf(subsetOf(trace)));
}
