/**
 * Scores: the step scorer's probability that each step is the decisive one and the agent scorer's
 * that each agent is responsible (`predict.ts`), a mode's probability (`logistic.ts`), and stated
 * confidences through a Platt mapping (`calibration.ts`). Nothing here loads ml-matrix.
 */
export { predict, predictOffline, type OfflinePrediction } from './predict.js';
export { scoreRows, softmax, stepProbabilitiesOf, type LinearScorer } from './scoring.js';
export { applyPlatt, type ConfidenceCalibration, type Platt } from './calibration.js';
