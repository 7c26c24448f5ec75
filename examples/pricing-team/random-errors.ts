/**
 * Seeded random mistakes for the pricing team's scripted model (brain.ts): each researcher report
 * draws whether the researcher misreports, each analyst calculation whether the analyst leaves
 * the fee out. Each agent draws from a stream of its own, so a run's k-th report gets the k-th
 * draw whatever the order in which concurrent runs reach it: the counts over N runs depend on the
 * seed alone.
 */
import { seededRandom } from '../../src/eval/metrics.js';

/** How often each agent errs, and the seed. */
export interface ErrorRates {
  seed: number;
  /** Share of researcher reports that misreport the price (default 0.5). */
  researcher?: number;
  /** Share of analyst calculations that leave the fee out (default 0.25). */
  analyst?: number;
}

/** The draws brain.ts asks for. */
export interface RandomErrors {
  researcherErrs(): boolean;
  analystErrs(): boolean;
}

/** The seeded draws of `rates`. */
export function randomErrors(rates: ErrorRates): RandomErrors {
  const researcher = seededRandom(rates.seed * 2 + 1);
  const analyst = seededRandom(rates.seed * 2 + 2);
  return {
    researcherErrs: () => researcher() < (rates.researcher ?? 0.5),
    analystErrs: () => analyst() < (rates.analyst ?? 0.25),
  };
}
