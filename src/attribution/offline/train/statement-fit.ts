/**
 * Fitting what an unfamiliar run states (issue 53): a small logistic regression from what the run
 * shows (decode/statement-signals.ts) to whether the verdict was right, on the predictions of each
 * training system by a model trained on the others, each system weighing the same whatever its
 * number of runs. What it states is capped at the best hit rate of those held-out systems (never
 * above what they support) and floored at chance when read (scores/statement.ts).
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

const rounded = (value: number) => Number(value.toPrecision(6));

/**
 * The statement fitted on held-out predictions of several systems; undefined where fewer than two
 * systems have MIN_RUNS predictions (nothing to tell systems apart by).
 */
export function fitStatement(
  items: readonly SignalItem[],
  l2: number = STATEMENT_L2,
): StatementFit | undefined {
  const systems = [...new Set(items.map((item) => item.system))]
    .map((system) => items.filter((item) => item.system === system))
    .filter((runs) => runs.length >= MIN_RUNS);
  if (systems.length < 2) return undefined;
  const largest = Math.max(...systems.map((runs) => runs.length));
  // Each system counts the same: its runs are repeated to about the largest system's number.
  const rows: (readonly number[])[] = [];
  const labels: boolean[] = [];
  for (const runs of systems) {
    const repeat = Math.max(1, Math.round(largest / runs.length));
    for (let copy = 0; copy < repeat; copy += 1)
      for (const item of runs) {
        rows.push(item.signals);
        labels.push(item.correct);
      }
  }
  const logistic = fitLogistic(rows, labels, l2);
  const rates = systems.map((runs) => runs.filter((item) => item.correct).length / runs.length);
  return {
    logistic: {
      mean: logistic.mean.map(rounded),
      scale: logistic.scale.map(rounded),
      weights: logistic.weights.map(rounded),
      bias: rounded(logistic.bias),
    },
    cap: rounded(Math.max(...rates)),
  };
}
