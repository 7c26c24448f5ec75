/**
 * Verifying an attribution by counterfactual replay. The decisive step is the *earliest* step
 * whose correction turns the failure into a success, and a fix to a later step (the final answer,
 * a reviewer) often flips the outcome too; so verifying has two phases, within `budget` replays:
 *
 * 1. the top `top` candidate steps, in the attribution's order (the named step first), each
 *    replayed with a fix a model writes for it, until one flips the outcome at step s;
 * 2. the model-call steps before s (the ranked ones first, then the rest from the first step on),
 *    each replayed the same way; the earliest that flips is the verified decisive step.
 *
 * Every replay's result is kept, and the result says whether every model call before the verified
 * step was tried (else which were not).
 */
import type { Attribution, Candidate } from '../../attribution/method.js';
import { describeError, UserError } from '../../errors.js';
import type { ModelClient } from '../../llm/client.js';
import { describeFix, writeFix, type Fix } from './fix.js';
import { replay, replayableRecording, type ReplayOptions, type ReplayResult } from './replay.js';

export { describeVerification } from './verify-summary.js';

/** Why a step was replayed: it is one of the top candidates, or it comes before a step that flipped. */
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
  /** How many candidates were eligible (the top K model-call steps). */
  candidates: number;
  /** With a verified step: what is known of the model-call steps before it. */
  earlier?: EarlierSearch;
}

/** A step to replay: a candidate the attribution ranks (with its score), or another model call. */
export type StepToTry = Pick<Candidate, 'step' | 'agent'> & { score?: number };

/** Settings of a verification. */
export interface VerifyOptions extends Omit<ReplayOptions, 'step' | 'fix'> {
  attribution: Attribution;
  /** Writes each candidate's fix. */
  fixWriter: ModelClient;
  /** Candidates considered (default 3). */
  top?: number;
  /** Most replays, both phases together (default: twice `top`: the candidates, then as many earlier steps). */
  budget?: number;
}

/**
 * The candidate steps to replay, best first: the attribution's named step, then its candidates in
 * the attribution's order (the offline method's follow its decoding, not the top score), kept to
 * the run's model calls (a tool's output follows from the call before it); when the attribution
 * ranks fewer than `top` of them, the run's other model calls follow from the first step on, so
 * that `top` is honoured as given.
 */
export function candidateSteps(
  attribution: Attribution,
  callSteps: ReadonlyMap<number, string> | ReadonlySet<number>,
  top: number,
): StepToTry[] {
  const listed = attribution.candidates ?? [];
  const named = listed.find((candidate) => candidate.step === attribution.step);
  const ranked: StepToTry[] = named
    ? [named, ...listed.filter((candidate) => candidate !== named)]
    : [...listed];
  if (!named && attribution.step !== null && attribution.agent !== null)
    ranked.unshift({
      step: attribution.step,
      agent: attribution.agent,
      score: attribution.confidence ?? 1,
    });
  const agents = callSteps instanceof Map ? callSteps : undefined;
  const unranked = [...callSteps.keys()]
    .sort((a, b) => a - b)
    .map((step) => ({ step, agent: agents?.get(step) ?? '' }));
  const seen = new Set<number>();
  return [...ranked, ...unranked]
    .filter((candidate) => {
      if (!callSteps.has(candidate.step) || seen.has(candidate.step)) return false;
      seen.add(candidate.step);
      return true;
    })
    .slice(0, top);
}

/** Replays the candidates, then the steps before the first that flips; see the file's comment. */
export async function verify(options: VerifyOptions): Promise<Verification> {
  const name = options.trace.source ?? options.trace.id;
  const recording = replayableRecording(options.trace, name);
  const top = options.top ?? 3;
  const budget = options.budget ?? 2 * top;
  const callSteps = new Map(
    recording.calls.flatMap((call) =>
      call.step === undefined ? [] : [[call.step, call.agent] as const],
    ),
  );
  const candidates = candidateSteps(options.attribution, callSteps, top);
  if (candidates.length === 0)
    throw new UserError(
      `${name}: the attribution names no step that is a model call, so there is nothing to replay`,
    );
  const attempts: Attempt[] = [];
  const tryStep = stepReplayer(options, attempts);
  let flipped: Extract<Attempt, { status: 'replayed' }> | undefined;
  for (const [rank, candidate] of candidates.entries()) {
    if (flipped || attempts.length >= budget) break;
    const reason =
      candidate.step === options.attribution.step
        ? options.attribution.reason
        : `the ${options.attribution.method} attribution ranks this step #${rank + 1} among the candidates for the decisive error${candidate.score === undefined ? '' : ` (score ${candidate.score.toFixed(2)})`}`;
    const attempt = await tryStep(
      candidate,
      'candidate',
      reason,
      `candidate ${rank + 1} of ${candidates.length}`,
    );
    if (attempt.status === 'replayed' && attempt.flipped) flipped = attempt;
  }
  if (!flipped)
    return { verified: null, attempts, replays: attempts.length, candidates: candidates.length };
  const first = flipped;
  // Phase 2: the ranked steps before the one that flipped, then the rest from the first step on.
  const earlier = [
    ...candidates,
    ...[...callSteps.keys()].sort((a, b) => a - b).map((step) => ({ step })),
  ].filter((candidate) => candidate.step < first.step);
  for (const candidate of earlier) {
    if (attempts.length >= budget) break;
    if (candidate.step >= flipped.step || attempts.some((item) => item.step === candidate.step))
      continue;
    const attempt = await tryStep(
      { ...candidate, agent: callSteps.get(candidate.step)! },
      'earlier',
      `a fix at the later step ${flipped.step} (${flipped.agent}) flipped the outcome; this earlier step is replayed to find whether the error began here`,
      `earlier step (before step ${flipped.step})`,
    );
    if (attempt.status === 'replayed' && attempt.flipped) flipped = attempt;
  }
  return verification(flipped, first.step, attempts, candidates.length, callSteps);
}

/** Writes a fix for a step and replays it; records the attempt (a diverged replay as failed). */
function stepReplayer(options: VerifyOptions, attempts: Attempt[]) {
  const log = options.log ?? (() => {});
  return async (
    candidate: StepToTry,
    search: AttemptSearch,
    reason: string,
    what: string,
  ): Promise<Attempt> => {
    const { step } = candidate;
    const score = candidate.score === undefined ? {} : { score: candidate.score };
    log(`${what}: step ${step} (${candidate.agent}); writing a fix`);
    const fix = await writeFix(options.fixWriter, options.trace, step, reason);
    log(`fix for step ${step}: ${describeFix(fix)}`);
    let attempt: Attempt;
    try {
      const result = await replay({ ...options, step, fix });
      const { agent, flipped, run, calls } = result;
      attempt = { status: 'replayed', search, ...score, step, agent, flipped, run, calls, fix };
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      // A replay that diverged says nothing about the step; the next one may still flip.
      log(`step ${step}: ${describeError(error)}`);
      const { agent } = candidate;
      attempt = { status: 'failed', search, ...score, step, agent, error: error.message };
    }
    attempts.push(attempt);
    return attempt;
  };
}

/** The verification once a step flipped: the earliest found and what is known before it. */
function verification(
  earliest: Extract<Attempt, { status: 'replayed' }>,
  firstFlipped: number,
  attempts: Attempt[],
  candidates: number,
  callSteps: ReadonlyMap<number, string>,
): Verification {
  const steps = [...callSteps.keys()].filter((step) => step < earliest.step).sort((a, b) => a - b);
  const statusOf = (step: number) => attempts.find((item) => item.step === step)?.status;
  const earlier: EarlierSearch = {
    steps,
    replayed: steps.filter((step) => statusOf(step) === 'replayed'),
    failed: steps.filter((step) => statusOf(step) === 'failed'),
    untried: steps.filter((step) => statusOf(step) === undefined),
  };
  return {
    verified: {
      step: earliest.step,
      agent: earliest.agent,
      replays: attempts.length,
      run: earliest.run,
      fix: earliest.fix,
      firstFlipped,
      earlierAllTried: earlier.replayed.length === steps.length,
    },
    attempts,
    replays: attempts.length,
    candidates,
    earlier,
  };
}
