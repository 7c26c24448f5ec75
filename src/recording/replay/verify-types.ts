/**
 * What verifying found, as data: each replay tried, the verified step and what is known of the
 * model calls before it. Shared by verify.ts (which finds it) and verify-summary.ts (which says
 * it), so that neither imports the other.
 */
import type { Candidate } from '../../attribution/method.js';
import type { Fix } from './fix.js';
import type { ReplayResult } from './replay.js';

/**
 * Why a step was replayed: it is a candidate (one of the top ones, or further down the ranking
 * while no replay had flipped), or it comes before a step that flipped.
 */
export type AttemptSearch = 'candidate' | 'earlier';

/** One replay tried. */
export type Attempt = { search: AttemptSearch; score?: number } & (
  | ({ status: 'replayed' } & Pick<ReplayResult, 'step' | 'agent' | 'flipped' | 'run' | 'calls'> & {
        fix: Fix;
      })
  | { status: 'failed'; step: number; agent: string; error: string }
);

/** The verified decisive step: the earliest step found whose fix flipped the outcome. */
export interface Verified {
  step: number;
  agent: string;
  /** Replays used in all (both phases). */
  replays: number;
  /** The replayed run that flipped. */
  run: string;
  fix: Fix;
  /** The candidate that flipped first (phase 1); a later step than `step` when one was found. */
  firstFlipped: number;
  /** True when every model-call step before `step` was replayed (none flipped). */
  earlierAllTried: boolean;
}

/** The search for an earlier flipping step, after a candidate flipped. */
export interface EarlierSearch {
  /** The model-call steps before the verified step. */
  steps: number[];
  /** Those replayed (none flipped). */
  replayed: number[];
  /** Those whose replay failed (it diverged), which says nothing about them. */
  failed: number[];
  /** Those not tried: the budget ran out. */
  untried: number[];
}

/** What verifying found. */
export interface Verification {
  verified: Verified | null;
  /** Every replay, in the order tried. */
  attempts: Attempt[];
  replays: number;
  /** How many candidates were considered first (the top K model-call steps). */
  candidates: number;
  /** Without a verified step: the model-call steps never replayed (the budget ran out first). */
  untried?: number[];
  /** With a verified step: what is known of the model-call steps before it. */
  earlier?: EarlierSearch;
}

/** A step to replay: a candidate the attribution ranks (with its score), or another model call. */
export type StepToTry = Pick<Candidate, 'step' | 'agent'> & { score?: number };
