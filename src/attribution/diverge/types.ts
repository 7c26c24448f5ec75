/**
 * What a trajectory diff answers: the failed and the passing run aligned step by step, and the
 * first step where the failed run departs from the passing one in substance. Types only (no
 * runtime imports), so the server's API types and the page can share them.
 */

/** How an aligned pair stands: alike, alike but for wording, different in substance, or one-sided. */
export type PairStatus = 'same' | 'reworded' | 'changed' | 'inserted' | 'missing';

/** What a changed step changes in substance; wording alone is none of these. */
export type Aspect = 'numbers' | 'tool calls' | 'code' | 'decision' | 'content' | 'agent' | 'error';

/** One row of the alignment: a step of each run, or of one run only. */
export interface AlignedPair {
  /** The failed run's step index; null when the passing run's step has no counterpart. */
  failed: number | null;
  /** The passing run's step index; null for a step the failed run inserted. */
  passed: number | null;
  status: PairStatus;
  /** For `changed`: what differs. */
  aspects?: Aspect[];
}

/** The first place where the failed run departs from the passing one. */
export interface Divergence {
  /**
   * The failed run's step named: the changed or inserted step, or, for a passing step with no
   * counterpart, the failed step that stands where it would be.
   */
  failedStep: number;
  /** The passing run's step set beside it; null for an inserted step. */
  passedStep: number | null;
  kind: 'changed' | 'inserted' | 'missing';
  /** The agent of the failed step named. */
  agent: string;
  aspects: Aspect[];
  /** One line saying what differs, e.g. `a figure changed: 41 where the passing run has 42`. */
  detail: string;
  /** The failed step's line that shows it (at most 160 characters; `...` marks a cut). */
  failed: string;
  /** The passing step's line beside it; empty for an inserted step. */
  passed: string;
}

/** One run of a diff, as named in answers. */
export interface DiffRun {
  id: string;
  /** The file (or stored trace name) it came from. */
  name: string;
  steps: number;
}

/** A trajectory diff of a failed run against a passing run of the same task. */
export interface TraceDiff {
  failed: DiffRun;
  passed: DiffRun;
  /** Null when the runs do not differ in substance ("no divergence"). */
  divergence: Divergence | null;
  /** Index in `pairs` of the divergence's pair (what a view marks); null with no divergence. */
  divergencePair: number | null;
  /** The aligned runs, in order. */
  pairs: AlignedPair[];
  /** Pairs of each status. */
  counts: Record<PairStatus, number>;
  /**
   * True when the runs were too long to align every step with every other and the alignment kept
   * to a band around the diagonal (docs/ARCHITECTURE.md): a far-moved step may then show as
   * missing and inserted rather than moved.
   */
  banded: boolean;
}
