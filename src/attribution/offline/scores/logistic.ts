/**
 * A binary logistic regression on standardised columns, as the failure-mode classifier stores one
 * per mode (mode-model.ts), and its probability for a row. Fitting lives in fit-logistic.ts, so
 * that attributing does not load the linear algebra.
 */

/** A fitted model: column standardisation, weights and an intercept. */
export interface Logistic {
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

/** Each model's weights divided by its column scales, computed once per model. */
const scaledWeights = new WeakMap<Logistic, Float64Array>();

function scaledWeightsOf(model: Logistic): Float64Array {
  let scaled = scaledWeights.get(model);
  if (!scaled) {
    scaled = Float64Array.from(model.weights, (weight, column) => weight / model.scale[column]!);
    scaledWeights.set(model, scaled);
  }
  return scaled;
}

/** The model's probability for one row. */
export function logisticProbability(model: Logistic, row: readonly number[]): number {
  const weights = scaledWeightsOf(model);
  const { mean } = model;
  let score = model.bias;
  for (let column = 0; column < weights.length; column += 1)
    score += weights[column]! * (row[column]! - mean[column]!);
  return 1 / (1 + Math.exp(-score));
}
