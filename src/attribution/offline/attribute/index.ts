/**
 * Attribute: the offline method, the one reader of the model file: it runs a trace through
 * features → scores → decode → explain (`attributor.ts`).
 */
export {
  attributeWithModel,
  createOfflineMethod,
  loadOfflineModel,
  DEFAULT_MODEL_PATH,
} from './attributor.js';
