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

/** The model's probability for one row. */
export function logisticProbability(model: Logistic, row: readonly number[]): number {
  let score = model.bias;
  for (let column = 0; column < model.weights.length; column += 1)
    score += (model.weights[column]! * (row[column]! - model.mean[column]!)) / model.scale[column]!;
  return 1 / (1 + Math.exp(-score));
}
