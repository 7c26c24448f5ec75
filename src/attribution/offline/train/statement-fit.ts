/**
 * Fitting what an unfamiliar run states (issue 53): a small logistic regression from what the run
 * shows (decode/statement-signals.ts) to whether the verdict was right, on the predictions of each
 * training system by a model trained on the others, each system weighing the same whatever its
 * number of runs. Only the signals' effect within a system is kept: pooled over systems, the
 * signals mostly told systems apart, and that did not carry to a system left out (a pooled fit
 * overstated two of six held-out systems by 0.2). What it states starts from the lowest held-out
 * system's hit rate, is capped at the best (never above what they support) and floored at chance
 * when read (scores/statement.ts).
 */
import { fitLogistic } from './fit-logistic.js';
import type { StatementFit } from '../scores/statement.js';

/** One held-out prediction: its system, whether it was right, the run's signals. */
export interface SignalItem {
  system: string;
  correct: boolean;
  signals: readonly number[];
}

/** Fewest held-out predictions of a system for it to count. */
const MIN_RUNS = 10;
/** L2 penalty on the standardised weights: a few signals, a few hundred runs a system. */
export const STATEMENT_L2 = 0.1;
/**
 * How far (in log-odds) below the lowest held-out system's hit rate a run at the training runs'
 * mean signals is stated: 0.5 kept every held-out system with step labels within 0.01 of its
 * accuracy on average (docs/MODEL.md, Stated figures).
 */
export const STATEMENT_MARGIN = 0.5;

const rounded = (value: number) => Number(value.toPrecision(6));
const logit = (rate: number) => {
  const clipped = Math.min(0.99, Math.max(0.01, rate));
  return Math.log(clipped / (1 - clipped));
};

/**
 * The statement fitted on held-out predictions of several systems: the signals' effect within a
 * system (a logistic regression with one intercept per system, so that what tells systems apart,
 * which does not carry to an unseen one, is not read as a signal), from a level at the lowest
 * system's hit rate less STATEMENT_MARGIN, capped at the highest. Undefined where fewer than two
 * systems have MIN_RUNS predictions.
 */
export function fitStatement(
  items: readonly SignalItem[],
  l2: number = STATEMENT_L2,
  margin: number = STATEMENT_MARGIN,
): StatementFit | undefined {
  const systems = [...new Set(items.map((item) => item.system))]
    .map((system) => items.filter((item) => item.system === system))
    .filter((runs) => runs.length >= MIN_RUNS);
  if (systems.length < 2) return undefined;
  const width = systems[0]![0]!.signals.length;
  const largest = Math.max(...systems.map((runs) => runs.length));
  // Each system counts the same: its runs are repeated to about the largest system's number. A
  // column per system (but the first) holds its own level.
  const rows: number[][] = [];
  const labels: boolean[] = [];
  systems.forEach((runs, index) => {
    const repeat = Math.max(1, Math.round(largest / runs.length));
    const levels = systems.slice(1).map((_, column) => (column + 1 === index ? 1 : 0));
    for (let copy = 0; copy < repeat; copy += 1)
      for (const item of runs) {
        rows.push([...item.signals, ...levels]);
        labels.push(item.correct);
      }
  });
  const logistic = fitLogistic(rows, labels, l2);
  const rates = systems.map((runs) => runs.filter((item) => item.correct).length / runs.length);
  return {
    logistic: {
      mean: logistic.mean.slice(0, width).map(rounded),
      scale: logistic.scale.slice(0, width).map(rounded),
      weights: logistic.weights.slice(0, width).map(rounded),
      bias: rounded(logit(Math.min(...rates)) - margin),
    },
    cap: rounded(Math.max(...rates)),
  };
}
