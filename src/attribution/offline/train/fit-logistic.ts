/**
 * Binary logistic regression with an L2 penalty, fitted by Newton's method (newton.ts; linear solves by
 * ml-matrix) on standardised columns: small, concave and deterministic, like the conditional logit
 * the step and agent scorers use. The failure-mode classifier fits one per mode (mode-training.ts).
 */
import { Matrix, solve } from 'ml-matrix';
import type { Logistic } from '../scores/logistic.js';
import { maximiseByNewton } from './newton.js';

/** Fits P(label) from rows; `l2` penalises the standardised weights (not the intercept). */
export function fitLogistic(
  rows: readonly (readonly number[])[],
  labels: readonly boolean[],
  l2: number,
  iterations = 25,
): Logistic {
  const width = rows[0]?.length ?? 0;
  const count = rows.length;
  const mean = new Array<number>(width).fill(0);
  const scale = new Array<number>(width).fill(0);
  for (const row of rows) row.forEach((value, column) => (mean[column]! += value / count));
  for (const row of rows)
    row.forEach((value, column) => (scale[column]! += (value - mean[column]!) ** 2 / count));
  for (let column = 0; column < width; column += 1)
    scale[column] = scale[column]! > 1e-12 ? Math.sqrt(scale[column]!) : 1;
  // Column 0 is the intercept; the rest are the standardised features, row after row in one array.
  const size = width + 1;
  const design = new Float64Array(count * size);
  rows.forEach((row, index) => {
    design[index * size] = 1;
    for (let column = 0; column < width; column += 1)
      design[index * size + column + 1] = (row[column]! - mean[column]!) / scale[column]!;
  });
  const scoreOf = (values: Float64Array, index: number) => {
    let score = 0;
    for (let column = 0, offset = index * size; column < size; column += 1)
      score += values[column]! * design[offset + column]!;
    return score;
  };
  const loss = (values: Float64Array) => {
    let total = 0;
    let penalty = 0;
    for (let index = 0; index < count; index += 1) {
      const score = scoreOf(values, index);
      // log(1 + e^s) written to stay finite for large |s|.
      total +=
        Math.max(score, 0) + Math.log1p(Math.exp(-Math.abs(score))) - (labels[index] ? score : 0);
    }
    for (let column = 1; column < size; column += 1) penalty += values[column]! ** 2;
    return total / Math.max(count, 1) + (l2 / 2) * penalty;
  };
  const start = new Float64Array(size);
  const positives = labels.filter(Boolean).length;
  if (positives > 0 && positives < count) start[0] = Math.log(positives / (count - positives));
  // Newton's method on the gradient and Hessian of the loss; the fitter maximises, so the loss is
  // negated and the step is taken against the solved direction.
  const direction = (weights: Float64Array) => {
    const gradient = new Float64Array(size);
    const hessian = new Float64Array(size * size);
    for (let index = 0; index < count; index += 1) {
      const probability = 1 / (1 + Math.exp(-scoreOf(weights, index)));
      const residual = (probability - (labels[index] ? 1 : 0)) / count;
      const curvature = (probability * (1 - probability)) / count;
      const offset = index * size;
      for (let left = 0; left < size; left += 1) {
        const value = design[offset + left]!;
        if (value === 0) continue;
        gradient[left]! += residual * value;
        const scaled = curvature * value;
        // The Hessian is symmetric: fill the upper half here, mirror it below.
        for (let right = left; right < size; right += 1)
          hessian[left * size + right]! += scaled * design[offset + right]!;
      }
    }
    const matrix = new Matrix(size, size);
    for (let left = 0; left < size; left += 1) {
      for (let right = left; right < size; right += 1) {
        const value =
          hessian[left * size + right]! + (left === right ? (left === 0 ? 1e-9 : l2) : 0);
        matrix.set(left, right, value);
        matrix.set(right, left, value);
      }
      if (left > 0) gradient[left]! += l2 * weights[left]!;
    }
    return solve(matrix, Matrix.columnVector([...gradient]))
      .to1DArray()
      .map((value) => -value);
  };
  const weights = maximiseByNewton({ value: (at) => -loss(at), direction }, start, {
    iterations: count > 0 ? iterations : 0,
  });
  const round = (value: number) => Number(value.toPrecision(8));
  return {
    mean: mean.map(round),
    scale: scale.map(round),
    weights: [...weights.subarray(1)].map(round),
    bias: round(weights[0]!),
  };
}
