/**
 * Model: the model file's schema, loader and checks (`model-file.ts`; every field in
 * docs/MODEL-FORMAT.md) and the training settings with their defaults (`settings.ts`).
 */
export {
  MODEL_FORMAT_VERSION,
  readModelFile,
  validateModel,
  type OfflineModel,
} from './model-file.js';
export { DEFAULT_TRAIN_SETTINGS, type TrainSettings } from './settings.js';
