/**
 * A conditional logit (listwise softmax regression): each list (a trace's steps, or its agents)
 * gets a linear score per item and a softmax over the allowed items. Fitted with an L2 penalty by
 * Newton's method (newton.ts; linear solves by ml-matrix): the objective is concave and small.
 */
import { Matrix, solve } from 'ml-matrix';
import type { LinearScorer } from '../scores/scoring.js';
import { maximiseByNewton } from './newton.js';

/**
 * One labelled list: a feature row per item, which items may be chosen, and the right one, or the
 * right ones when several are (then each counts for an equal share of the list's likelihood).
 */
export interface LabelledList {
  rows: number[][];
  mask: boolean[];
  label: number | readonly number[];
  /** The list's share of the likelihood (default 1), e.g. to give every system an equal say. */
  weight?: number;
}

const labelsOf = (list: LabelledList): readonly number[] =>
  typeof list.label === 'number' ? [list.label] : list.label;

/** Fit settings. */
export interface FitSettings {
  /** L2 penalty on standardised weights, against the mean log-likelihood per list. */
  l2: number;
  /** Most Newton iterations; fitting stops once the objective stops improving. */
  iterations: number;
}

/** Column means and scales over every allowed item (scale 1 for constant columns). */
function standardisation(
  lists: readonly LabelledList[],
  width: number,
): { mean: number[]; scale: number[] } {
  const sum = new Array<number>(width).fill(0);
  const squares = new Array<number>(width).fill(0);
  let count = 0;
  for (const list of lists) {
    list.rows.forEach((row, index) => {
      if (!list.mask[index]) return;
      count += 1;
      row.forEach((value, column) => {
        sum[column]! += value;
        squares[column]! += value * value;
      });
    });
  }
  const mean = sum.map((value) => (count > 0 ? value / count : 0));
  const scale = squares.map((value, column) => {
    const variance = count > 0 ? value / count - mean[column]! ** 2 : 0;
    return variance > 1e-12 ? Math.sqrt(variance) : 1;
  });
  return { mean, scale };
}

/**
 * Mean log-likelihood of the labels minus the L2 penalty; with `derivatives`, also its gradient and
 * Hessian, from which Newton's method takes its steps.
 */
function objective(
  lists: readonly LabelledList[],
  flat: readonly Float64Array[],
  weights: Float64Array,
  l2: number,
  derivatives: boolean,
) {
  const width = weights.length;
  const gradient = new Float64Array(width);
  const hessian = derivatives ? Array.from({ length: width }, () => new Float64Array(width)) : [];
  const expected = new Float64Array(width);
  let value = 0;
  lists.forEach((list, listIndex) => {
    const values = flat[listIndex]!;
    const count = list.rows.length;
    const scores = new Float64Array(count);
    let max = -Infinity;
    for (let index = 0; index < count; index += 1) {
      if (!list.mask[index]) continue;
      let score = 0;
      for (let column = 0; column < width; column += 1)
        score += weights[column]! * values[index * width + column]!;
      scores[index] = score;
      if (score > max) max = score;
    }
    const labels = labelsOf(list);
    let labelScore = 0;
    for (const label of labels) labelScore += scores[label]!;
    labelScore /= labels.length;
    const weight = list.weight ?? 1;
    let total = 0;
    for (let index = 0; index < count; index += 1) {
      scores[index] = list.mask[index] ? Math.exp(scores[index]! - max) : 0;
      total += scores[index]!;
    }
    value += weight * (labelScore - max - Math.log(total));
    if (!derivatives) return;
    expected.fill(0);
    for (let index = 0; index < count; index += 1) {
      scores[index] = scores[index]! / total;
      for (let column = 0; column < width; column += 1)
        expected[column]! += scores[index]! * values[index * width + column]!;
    }
    for (const label of labels) {
      const labelOffset = label * width;
      for (let column = 0; column < width; column += 1)
        gradient[column]! +=
          (weight * (values[labelOffset + column]! - expected[column]!)) / labels.length;
    }
    // Hessian of the log-likelihood: -(E[x xᵀ] - E[x] E[x]ᵀ), the covariance under the softmax.
    for (let index = 0; index < count; index += 1) {
      const probability = weight * scores[index]!;
      if (probability === 0) continue;
      const offset = index * width;
      for (let row = 0; row < width; row += 1) {
        const centred = probability * (values[offset + row]! - expected[row]!);
        if (centred === 0) continue;
        const hessianRow = hessian[row]!;
        for (let column = 0; column < width; column += 1)
          hessianRow[column]! -= centred * (values[offset + column]! - expected[column]!);
      }
    }
  });
  let lists_ = 0;
  for (const list of lists) lists_ += list.weight ?? 1;
  let penalty = 0;
  for (let column = 0; column < width; column += 1) {
    penalty += weights[column]! ** 2;
    gradient[column] = gradient[column]! / lists_ - l2 * weights[column]!;
  }
  for (let row = 0; row < hessian.length; row += 1) {
    for (let column = 0; column < width; column += 1)
      hessian[row]![column] = hessian[row]![column]! / lists_ - (row === column ? l2 : 0);
  }
  return { value: value / lists_ - (l2 / 2) * penalty, gradient, hessian };
}

/** Fits a scorer on labelled lists. Lists with a label out of range or masked out are skipped. */
export function fitConditionalLogit(
  lists: readonly LabelledList[],
  width: number,
  settings: FitSettings,
): LinearScorer {
  const usable = lists.filter((list) => {
    const labels = labelsOf(list);
    return (
      labels.length > 0 &&
      labels.every((label) => label >= 0 && label < list.rows.length && list.mask[label])
    );
  });
  const { mean, scale } = standardisation(usable, width);
  const flat = usable.map((list) => {
    const values = new Float64Array(list.rows.length * width);
    list.rows.forEach((row, index) =>
      row.forEach(
        (value, column) =>
          (values[index * width + column] = (value - mean[column]!) / scale[column]!),
      ),
    );
    return values;
  });

  const weights =
    usable.length > 0
      ? maximiseByNewton(
          {
            value: (at) => objective(usable, flat, at, settings.l2, false).value,
            direction: (at) => {
              const { gradient, hessian } = objective(usable, flat, at, settings.l2, true);
              const negated = new Matrix(hessian.map((row) => [...row].map((value) => -value)));
              return solve(negated, Matrix.columnVector([...gradient])).to1DArray();
            },
          },
          new Float64Array(width),
          { iterations: settings.iterations },
        )
      : new Float64Array(width);
  const round = (value: number) => Number(value.toPrecision(8));
  return { mean: mean.map(round), scale: scale.map(round), weights: [...weights].map(round) };
}
