/**
 * Cross-validated predictions of the offline model: k folds grouped by question and stratified by
 * subset, repeated over seeds; every trace is predicted by a model that never saw its question.
 */
import { isTrainable } from '../attribution/offline/inputs.js';
import { assignFolds } from '../attribution/offline/folds.js';
import { attributeWithModel } from '../attribution/offline/attributor.js';
import {
  DEFAULT_TRAIN_SETTINGS,
  trainOfflineModel,
  type TrainSettings,
} from '../attribution/offline/train.js';
import type { Attribution } from '../attribution/method.js';
import type { Trace } from '../trace/model.js';

/** Cross-validation settings. */
export interface CrossValidationOptions {
  folds?: number;
  /** Fold assignments to average over; each seed is a full k-fold run. */
  seeds?: readonly number[];
  settings?: TrainSettings;
  useGroundTruth?: boolean;
  /** Called after each fold is trained and predicted. */
  onFold?: (done: number, total: number) => void;
}

/** One held-out prediction. */
export interface HeldOutPrediction {
  seed: number;
  trace: Trace;
  attribution: Attribution;
}

/** Held-out predictions for every trainable trace, once per seed. */
export function crossValidateOffline(
  traces: readonly Trace[],
  options: CrossValidationOptions = {},
): HeldOutPrediction[] {
  const folds = options.folds ?? 5;
  const seeds = options.seeds ?? [0];
  const settings = options.settings ?? DEFAULT_TRAIN_SETTINGS;
  const usable = traces.filter(isTrainable);
  const out: HeldOutPrediction[] = [];
  let done = 0;
  for (const seed of seeds) {
    const assignment = assignFolds(usable, folds, seed);
    for (let fold = 0; fold < folds; fold += 1) {
      const model = trainOfflineModel(
        usable.filter((_, index) => assignment[index] !== fold),
        settings,
      );
      usable.forEach((trace, index) => {
        if (assignment[index] !== fold) return;
        out.push({
          seed,
          trace,
          attribution: attributeWithModel(trace, model, {
            useGroundTruth: options.useGroundTruth !== false,
          }),
        });
      });
      done += 1;
      options.onFold?.(done, folds * seeds.length);
    }
  }
  return out;
}
