/**
 * Suspiciousness of a spectrum unit from its counts in failing and passing runs: the classic
 * spectrum-based fault localisation formulas (Ochiai, Tarantula, Jaccard, DStar, Kulczynski2) and
 * FAMAS's factors (a repeat inside one run counts λ^(c−1); agent activation; action share). Every
 * formula is written out in docs/SPECTRUM.md.
 */
import { UserError } from '../../errors.js';

/** A unit's spectrum: weighted counts of the runs holding it, and the runs in all. */
export interface Counts {
  /** Failing runs holding the unit, each counted λ^(c−1) for c occurrences. */
  failing: number;
  /** Passing runs holding the unit, weighted the same way. */
  passing: number;
  /** Failing runs read. */
  totalFailing: number;
  /** Passing runs read. */
  totalPassing: number;
}

/** A suspiciousness formula: higher is more suspicious; 0 when the unit is in no failing run. */
export type Formula = (counts: Counts) => number;

const ratio = (numerator: number, denominator: number) =>
  denominator === 0 ? 0 : numerator / denominator;

/** The registered formulas, by the name `--formula` takes. */
export const FORMULAS: ReadonlyMap<string, Formula> = new Map<string, Formula>([
  [
    'ochiai',
    ({ failing, passing, totalFailing }) =>
      ratio(failing, Math.sqrt(totalFailing * (failing + passing))),
  ],
  [
    'tarantula',
    ({ failing, passing, totalFailing, totalPassing }) => {
      const failShare = ratio(failing, totalFailing);
      // With no passing run, a unit's passing share is 0: the formula is then 1 for every unit
      // a failing run holds, and FAMAS's factors decide.
      return ratio(failShare, failShare + ratio(passing, totalPassing));
    },
  ],
  ['jaccard', ({ failing, passing, totalFailing }) => ratio(failing, totalFailing + passing)],
  [
    'dstar',
    // DStar with star 2; a unit in every failing run and no passing one would divide by 0: half a
    // run stands in for the missing denominator, so it ranks above any unit that misses a run.
    ({ failing, passing, totalFailing }) =>
      (failing * failing) / Math.max(passing + (totalFailing - failing), 0.5),
  ],
  [
    'kulczynski2',
    ({ failing, passing, totalFailing }) =>
      failing === 0 ? 0 : 0.5 * (failing / totalFailing + failing / (failing + passing)),
  ],
]);

/** FAMAS's default formula. */
export const DEFAULT_FORMULA = 'kulczynski2';

/** FAMAS's repeat discount λ. */
export const DEFAULT_LAMBDA = 0.9;

/** The formula registered as `name`, or a UserError listing the names. */
export function formulaNamed(name: string): Formula {
  const formula = FORMULAS.get(name.toLowerCase());
  if (!formula)
    throw new UserError(
      `unknown spectrum formula "${name}"; choose one of: ${[...FORMULAS.keys()].join(', ')}`,
    );
  return formula;
}

/** What a run of c occurrences adds to a unit's count: λ^(c−1), 0 when absent. */
export const repeatWeight = (occurrences: number, lambda: number) =>
  occurrences === 0 ? 0 : lambda ** (occurrences - 1);

/** FAMAS's in-run factor for c occurrences in the failed run: 1 + log_{1/λ}(c). */
export const repeatFactor = (occurrences: number, lambda: number) =>
  occurrences <= 1 ? 1 : 1 + Math.log(occurrences) / Math.log(1 / lambda);

/** FAMAS's agent activation: 1 + (runs holding the unit) / (runs in which its agent acts). */
export const activationFactor = (runsWithUnit: number, runsWithAgent: number) =>
  1 + ratio(runsWithUnit, runsWithAgent);

/** FAMAS's action share: 1 + (the unit's count over all runs) / (its agent's units over all runs). */
export const shareFactor = (unitTotal: number, agentTotal: number) =>
  1 + ratio(unitTotal, agentTotal);
