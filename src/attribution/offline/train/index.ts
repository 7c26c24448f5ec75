/**
 * Train: `trainModelFile` builds the whole model file from labelled runs (`train-model-file.ts`):
 * the scorers (`scorers.ts`, by `conditional-logit.ts`), the mode classifiers (modes/), the
 * calibration (`calibrate.ts`, by `platt.ts`). `newton.ts` is the one fitter behind them and
 * `folds.ts` the one loop over held-out folds.
 */
export {
  trainModelFile,
  MODEL_PARTS,
  type ModelPart,
  type TrainModelOptions,
} from './train-model-file.js';
export { foldsOf, assignFolds, assignFoldsFor, type FoldPlan } from './folds.js';
