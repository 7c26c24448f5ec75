/**
 * What an unfamiliar run states: confidences that never overstate on a system left out of
 * training. The stated figure starts at the low end of what held-out systems support, the lowest
 * hit rate among the systems left out in turn and the systems measured elsewhere
 * (MEASURED_UNSEEN), and a validated signal (decode/clear-favourite.ts) moves it by the least it
 * moved the hit rate on any held-out system: up where it holds, down where it does not.
 */

/** One held-out prediction: its system, whether it was right, whether the signal held. */
export interface HeldOutItem {
  system: string;
  correct: boolean;
  clear: boolean;
}

/**
 * Hit rates measured on runs of systems faultline never saw, outside the data here (issue 44 and
 * 43): a software team with MetaGPT roles, where the named agent was right in 17% of 127 runs and
 * the exact step in 3.9%. They count in the low end and the range as a held-out system would.
 */
export const MEASURED_UNSEEN = { agent: 0.17, step: 0.039 } as const;

/** Fewest runs of a system (or of a system's runs with or without the signal) that count. */
const MIN_RUNS = 10;
/** Least a stated figure may be. */
const FLOOR = 0.01;

const rounded = (value: number) => Number(value.toPrecision(6));
const rateOf = (items: readonly HeldOutItem[]) =>
  items.filter((item) => item.correct).length / items.length;

/** What is stated without and with the signal, and the range of the systems' hit rates. */
export interface UnseenStatement {
  byEvidence: [number, number];
  range: [number, number];
}

/**
 * The statement from held-out predictions of several systems (`measured`: the hit rate measured
 * on unseen systems outside them). Undefined where no system has MIN_RUNS predictions.
 */
export function unseenStatement(
  items: readonly HeldOutItem[],
  measured: number,
): UnseenStatement | undefined {
  const systems = [...new Set(items.map((item) => item.system))]
    .map((system) => items.filter((item) => item.system === system))
    .filter((runs) => runs.length >= MIN_RUNS);
  if (systems.length === 0) return undefined;
  const rates = systems.map(rateOf);
  const low = Math.min(measured, ...rates);
  // How far the runs with (and without) the signal stand from their system's rate, at least
  // (without: at most), over the systems with enough runs each way.
  const shift = (clear: boolean) => {
    const shifts = systems.flatMap((runs, index) => {
      const some = runs.filter((item) => item.clear === clear);
      return some.length >= MIN_RUNS ? [rateOf(some) - rates[index]!] : [];
    });
    return shifts.length > 0 ? Math.min(...shifts) : 0;
  };
  const without = Math.max(FLOOR, low + Math.min(0, shift(false)));
  const withSignal = Math.min(0.99, Math.max(without, low + Math.max(0, shift(true))));
  return {
    byEvidence: [rounded(without), rounded(withSignal)],
    range: [rounded(low), rounded(Math.max(...rates))],
  };
}
