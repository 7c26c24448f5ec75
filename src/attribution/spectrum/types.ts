/**
 * What a spectrum analysis answers (rank.ts, origins.ts), as types only: the page shares them
 * through the server's API types (src/server/api-types.ts) without reaching the analysis's code.
 */

/** A unit at which failing runs first depart, and in how many. */
export interface Origin {
  unit: string;
  agent: string;
  /** Failing runs whose first departure it is. */
  runs: number;
  /** Failing runs holding it at all. */
  failingRuns: number;
  /** The step at which it is most often the first departure (the earliest such, on a tie). */
  step: number;
}

/** A unit with its counts and suspiciousness. */
export interface RankedUnit {
  key: string;
  agent: string;
  action: string;
  terms: string[];
  /** Failing and passing runs holding it (plain counts, not weighted). */
  failingRuns: number;
  passingRuns: number;
  /** The formula's value times FAMAS's activation and share factors. */
  score: number;
}

/** A step of the failed run and the unit it carries. */
export interface SuspiciousStep {
  step: number;
  agent: string;
  unit: string;
  /** The unit's score times the in-run repeat factor of the failed run. */
  score: number;
  failingRuns: number;
  passingRuns: number;
}

/** What a spectrum analysis concludes. */
export interface SpectrumResult {
  formula: string;
  /** Runs by outcome; runs of unknown outcome are left out of the counts. */
  runs: { failing: number; passing: number; unknown: number };
  /** Every unit, most suspicious first. */
  units: RankedUnit[];
  /** Where failing runs first part from the passing ones, most runs first (origins.ts). */
  departures: Origin[];
  /** Agents of the failed run, by their most suspicious step there. */
  agents: { agent: string; score: number }[];
  /** The failed run studied and its steps, most suspicious first (ties: earliest first). */
  failed: { id: string; source?: string; steps: SuspiciousStep[] };
  /** The most suspicious step of the failed run, or null when it has none to blame. */
  verdict: { agent: string; step: number } | null;
  /** False when the runs do not vary enough to single out one agent; `notes` say why. */
  conclusive: boolean;
  notes: string[];
}
