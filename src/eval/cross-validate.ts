/**
 * Cross-validated predictions of the offline model: k folds grouped by question and stratified by
 * subset, repeated over seeds, or one fold per system (folds.ts); every trace is predicted by a
 * model that never saw its question (or its system).
 * They become ordinary evaluation records (method `offline-cv`, one per trace and seed, or
 * `offline-loso` when each system is left out in turn), so
 * `faultline eval` and `faultline train --cv` summarise and print them with the same code.
 */
import { performance } from 'node:perf_hooks';
import { isLabelled } from '../attribution/offline/features/inputs.js';
import { attributeWithModel } from '../attribution/offline/attribute/attributor.js';
import {
  DEFAULT_FOLD_SEEDS,
  DEFAULT_TRAIN_SETTINGS,
  type TrainSettings,
} from '../attribution/offline/model/settings.js';
import type { OfflineModel } from '../attribution/offline/model/model-file.js';
import { adaptModel } from '../attribution/offline/train/system-layer.js';
import { trainModelFile } from '../attribution/offline/train/train-model-file.js';
import type { Attribution } from '../attribution/method.js';
import { traceHash } from '../trace/hash.js';
import type { Trace } from '../trace/model.js';
import { subsetOf } from '../trace/subset.js';
import {
  assignFoldsFor,
  foldCount,
  foldsOf,
  seedsOf,
  type FoldPlan,
} from '../attribution/offline/train/folds.js';
import { ADAPTED_OFFLINE, CROSS_VALIDATED_OFFLINE, LEAVE_ONE_SYSTEM_OUT } from './constants.js';
import { recordOf, type EvalRecord } from './result-store.js';

/** The folds of the cross-validated figures in docs/MODEL.md. */
export const DEFAULT_FOLD_PLAN: FoldPlan = { folds: 5, seeds: DEFAULT_FOLD_SEEDS };

/** Cross-validation settings. */
export interface CrossValidationOptions {
  /** Folds and the seeds of their assignments (default: DEFAULT_FOLD_PLAN). */
  plan?: FoldPlan;
  settings?: TrainSettings;
  useGroundTruth?: boolean;
  /**
   * Calibrate each fold's model on its own training runs, as `faultline train` does, so the
   * stated confidences are those a user would see (slower: eight fits a fold).
   */
  calibrate?: boolean;
  /** How much each training trace counts (default 1 each). */
  weightOf?: (trace: Trace) => number;
  /** Called after each fold is trained and predicted. */
  onFold?: (done: number, total: number) => void;
  /**
   * Instead of training, adapt this model to each fold's training runs (its system layer, as
   * `faultline train --base` does): the `offline-adapted` records.
   */
  adapt?: OfflineModel;
}

/** One held-out prediction. */
export interface HeldOutPrediction {
  seed: number;
  trace: Trace;
  attribution: Attribution;
}

/** Held-out predictions for every trainable trace, once per seed. */
function crossValidateOffline(
  traces: readonly Trace[],
  options: CrossValidationOptions = {},
): HeldOutPrediction[] {
  const plan = options.plan ?? DEFAULT_FOLD_PLAN;
  const method = options.adapt
    ? ADAPTED_OFFLINE
    : plan.by === 'system'
      ? LEAVE_ONE_SYSTEM_OUT
      : CROSS_VALIDATED_OFFLINE;
  const settings = options.settings ?? DEFAULT_TRAIN_SETTINGS;
  const usable = traces.filter(isLabelled);
  const folds = foldCount(usable, plan);
  const seeds = seedsOf(plan);
  const out: HeldOutPrediction[] = [];
  let done = 0;
  for (const seed of seeds) {
    const assignment = assignFoldsFor(usable, plan, seed);
    for (const { training, held } of foldsOf(usable, assignment, folds)) {
      const trained = options.adapt
        ? undefined
        : trainModelFile(training, {
            settings,
            ...(options.weightOf ? { weightOf: options.weightOf } : {}),
            parts: options.calibrate ? ['scorers', 'calibration'] : ['scorers'],
          });
      // Adapted to a system, a model learns from that system's runs only.
      const adapted = new Map<string, OfflineModel>();
      const modelFor = (trace: Trace): OfflineModel => {
        if (trained) return trained;
        const system = subsetOf(trace);
        let model = adapted.get(system);
        if (!model) {
          model = adaptModel(
            options.adapt!,
            training.filter((run) => subsetOf(run) === system),
          );
          adapted.set(system, model);
        }
        return model;
      };
      for (const trace of held) {
        const model = modelFor(trace);
        out.push({
          seed,
          trace,
          attribution: {
            ...attributeWithModel(trace, model, {
              useGroundTruth: options.useGroundTruth !== false,
            }),
            method,
          },
        });
      }
      done += 1;
      options.onFold?.(done, folds * seeds.length);
    }
  }
  return out;
}

/**
 * Cross-validated evaluation records of the offline model, one per trainable trace and seed; time
 * per record is the whole run's (training included) divided by the records.
 */
export function crossValidationRecords(
  traces: readonly Trace[],
  options: CrossValidationOptions = {},
): EvalRecord[] {
  const started = performance.now();
  const predictions = crossValidateOffline(traces, options);
  const milliseconds = (performance.now() - started) / Math.max(1, predictions.length);
  const keys = new Map<Trace, string>();
  return predictions.map(({ seed, trace, attribution }) => {
    let traceKey = keys.get(trace);
    if (traceKey === undefined) keys.set(trace, (traceKey = traceHash(trace)));
    return recordOf(attribution, {
      method: attribution.method,
      useGroundTruth: options.useGroundTruth !== false,
      trace,
      traceKey,
      milliseconds,
      foldSeed: seed,
    });
  });
}
