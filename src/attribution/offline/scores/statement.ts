/**
 * Reading what a run states from its signals (decode/statement-signals.ts) through a fitted
 * statement (train/statement-fit.ts): the fitted chance of being right, never below chance (one
 * over the candidates) and never above the best hit rate of the held-out systems it was fitted on.
 */
import { logisticProbability, type Logistic } from './logistic.js';

/** A statement as stored in the model file: the logistic fit and its cap. */
export interface StatementFit {
  logistic: Logistic;
  /** The best hit rate among the held-out systems fitted on: nothing is stated above it. */
  cap: number;
}

/** The figure stated for a run with these signals and `candidates` agents (or steps) to choose from. */
export function statedFigure(
  fit: StatementFit,
  signals: readonly number[],
  candidates: number,
): number {
  const chance = 1 / Math.max(1, candidates);
  return Math.max(chance, Math.min(fit.cap, logisticProbability(fit.logistic, signals)));
}
