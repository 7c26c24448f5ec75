/**
 * Modes: the MAST failure-mode classifiers, run-level and per agent: their features
 * (`mode-features.ts`), prediction (`mode-model.ts`) and training (`mode-training.ts`, which
 * attributing never loads).
 */
export { labelledModes, predictAgentModes, predictModes, type ModeModel } from './mode-model.js';
