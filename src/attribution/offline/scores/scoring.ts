/**
 * Scoring with a fitted conditional logit: a linear score per item and a softmax over the allowed
 * items. Kept apart from fitting so that attributing never loads the linear-algebra library.
 */

/** A fitted scorer: standardisation and weights, as stored in the model file. */
export interface LinearScorer {
  mean: number[];
  scale: number[];
  weights: number[];
}

/** Raw linear score of each row (before softmax). */
export function scoreRows(scorer: LinearScorer, rows: readonly number[][]): number[] {
  return rows.map((row) => {
    let score = 0;
    for (let column = 0; column < row.length; column += 1) {
      score +=
        scorer.weights[column]! * ((row[column]! - scorer.mean[column]!) / scorer.scale[column]!);
    }
    return score;
  });
}

/** Softmax over the masked-in entries; masked-out entries get probability 0. */
export function softmax(scores: readonly number[], mask: readonly boolean[]): number[] {
  let max = -Infinity;
  for (let index = 0; index < scores.length; index += 1)
    if (mask[index] && scores[index]! > max) max = scores[index]!;
  const exps = scores.map((score, index) => (mask[index] ? Math.exp(score - max) : 0));
  const total = exps.reduce((sum, value) => sum + value, 0);
  return exps.map((value) => (total > 0 ? value / total : 0));
}

/** Step probabilities under a step scorer: a softmax over the candidate steps. */
export function stepProbabilitiesOf(
  scorer: LinearScorer,
  rows: number[][],
  mask: boolean[],
): number[] {
  return softmax(scoreRows(scorer, rows), mask);
}
