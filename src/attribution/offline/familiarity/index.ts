/**
 * Familiarity: whether a run looks like the training runs (agent names, feature profile per
 * training system, known teams), which chooses its decoding regime and calibration.
 */
export { fitFamiliarity, isFamiliar, lookOf, type FamiliarityModel } from './familiarity.js';
