/**
 * Deterministic k-fold assignment grouped by question and stratified by subset: traces of the same
 * task always share a fold, so no question is both trained on and tested on.
 */
import { createHash } from 'node:crypto';
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
