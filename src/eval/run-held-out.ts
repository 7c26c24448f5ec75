/**
 * The held-out methods' records (`offline-cv`, leave-one-system-out and the learned baselines):
 * one per trace and fold seed, taken from the store when a seed has them all, else
 * cross-validated again.
 */
import { seedsOf, type FoldPlan } from '../attribution/offline/train/folds.js';
import type { Trace } from '../trace/model.js';
import { loadOfflineModel } from '../attribution/offline/attribute/attributor.js';
import { ADAPTED_OFFLINE, LEAVE_ONE_SYSTEM_OUT } from './constants.js';
import { crossValidationRecords } from './cross-validate.js';
import { recordKey } from './result-store.js';
import type { MethodRun } from './run-types.js';

/**
 * Reports stored or freshly cross-validated records for every selected trace and seed;
 * `offline-adapted` adapts the model at `modelPath` (the shipped one by default).
 */
export function evaluateHeldOut(
  run: MethodRun,
  labelled: Trace[],
  basePlan: FoldPlan,
  modelPath?: string,
): void {
  const { method, useGroundTruth, settings, selected, store, counter } = run;
  // Folds are drawn over all labelled traces so results do not depend on what was resumed.
  const plan: FoldPlan =
    run.methodName === LEAVE_ONE_SYSTEM_OUT ? { ...basePlan, by: 'system' } : basePlan;
  const seeds = seedsOf(plan);
  counter.total = selected.length * seeds.length;
  const missing = seeds.filter((foldSeed) => {
    const stored = selected.map((item) =>
      store.get(
        recordKey({
          method,
          useGroundTruth,
          traceKey: item.key,
          file: item.trace.source ?? item.trace.id,
          foldSeed,
          ...(settings ? { settings } : {}),
        }),
      ),
    );
    if (stored.every((record) => record !== undefined)) {
      for (const record of stored) counter.report(record, true);
      return false;
    }
    return true;
  });
  if (missing.length === 0) return;
  const wanted = new Set(selected.map((item) => item.key));
  for (const record of crossValidationRecords(labelled, {
    plan: { ...plan, seeds: missing },
    useGroundTruth,
    ...(run.methodName === ADAPTED_OFFLINE ? { adapt: loadOfflineModel(modelPath) } : {}),
  })) {
    if (!wanted.has(record.traceKey)) continue;
    const withSettings = settings ? { ...record, settings } : record;
    store.add(withSettings);
    counter.report(withSettings, false);
  }
}
