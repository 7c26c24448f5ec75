/**
 * Folds: how runs are split into training and held-out parts, and the one loop over them. Every
 * held-out figure (cross-validation, leave-one-system-out, the calibration's held-out predictions,
 * the mode thresholds, the learned baselines) draws its folds here.
 *
 * Question folds are deterministic, grouped by question and stratified by subset: runs of the same
 * task always share a fold, so no question is both trained on and tested on. System folds leave
 * one system (the importer's subset label, or the folder of the runs) out at a time: the measure
 * of how the model does on a system it has never seen.
 */
import { createHash } from 'node:crypto';
import { UserError } from '../../../errors.js';
import type { Trace } from '../../../trace/model.js';
import { subsetOf } from '../../../trace/subset.js';

/** The grouping key: the question text when known (only hashed, never a feature), else the id. */
function groupKey(trace: Trace): string {
  return createHash('sha256')
    .update(trace.question?.trim().toLowerCase() || `id:${trace.id}`)
    .digest('hex');
}

/**
 * Fold index (0..k-1) of each trace. Within each subset, groups are ordered by a seeded hash and
 * dealt round-robin, which balances subsets across folds and is reproducible for a given seed.
 */
export function assignFolds(traces: readonly Trace[], folds: number, seed = 0): number[] {
  const groupsBySubset = new Map<string, Set<string>>();
  const keys = traces.map(groupKey);
  traces.forEach((trace, index) => {
    const subset = subsetOf(trace);
    if (!groupsBySubset.has(subset)) groupsBySubset.set(subset, new Set());
    groupsBySubset.get(subset)!.add(keys[index]!);
  });
  const foldOfGroup = new Map<string, number>();
  let offset = 0;
  for (const subset of [...groupsBySubset.keys()].sort()) {
    const ordered = [...groupsBySubset.get(subset)!].sort((left, right) => {
      const leftKey = createHash('sha256').update(`${seed}:${left}`).digest('hex');
      const rightKey = createHash('sha256').update(`${seed}:${right}`).digest('hex');
      return leftKey.localeCompare(rightKey);
    });
    ordered.forEach((group, index) => {
      if (!foldOfGroup.has(group)) foldOfGroup.set(group, (index + offset) % folds);
    });
    offset += ordered.length;
  }
  return keys.map((key) => foldOfGroup.get(key)!);
}

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

/** One fold: its training items and its held-out items, each in their original order. */
export interface Fold<Item> {
  /** The fold's index, 0 … count − 1. */
  index: number;
  training: Item[];
  held: Item[];
}

/**
 * The folds of an assignment (a fold index per item), in order: fold k holds out the items
 * assigned to k and trains on the others. Every held-out figure loops over these.
 */
export function foldsOf<Item>(
  items: readonly Item[],
  assignment: readonly number[],
  count: number,
): Fold<Item>[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    training: items.filter((_, item) => assignment[item] !== index),
    held: items.filter((_, item) => assignment[item] === index),
  }));
}
