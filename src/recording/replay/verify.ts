/**
 * Verifying an attribution by counterfactual replay. The decisive step is the *earliest* step
 * whose correction turns the failure into a success, and a fix to a later step (the final answer,
 * a reviewer) often flips the outcome too; so verifying has two phases, within `budget` replays:
 *
 * 1. the top `top` candidate steps, in the attribution's order (the named step first), each
 *    replayed with a fix a model writes for it, until one flips the outcome at step s; when none
 *    of them flips, on down the ranking (the attribution's other candidates, then the run's other
 *    model calls from the first on) while the budget lasts, so no replay of the budget goes unused;
 * 2. the model-call steps before s (the ranked ones first, then the rest from the first step on),
 *    each replayed the same way; the earliest that flips is the verified decisive step.
 *
 * Every replay's result is kept, and the result says whether every model call before the verified
 * step was tried (else which were not).
 */
import type { Attribution } from '../../attribution/method.js';
import { describeError, UserError } from '../../errors.js';
import type { ModelClient } from '../../llm/client.js';
import { describeFix, writeFix } from './fix.js';
import { replay, replayableRecording, type ReplayOptions } from './replay.js';
import type {
  Attempt,
  AttemptSearch,
  EarlierSearch,
  StepToTry,
  Verification,
} from './verify-types.js';

export { describeVerification } from './verify-summary.js';
export type * from './verify-types.js';

/** Settings of a verification. */
export interface VerifyOptions extends Omit<ReplayOptions, 'step' | 'fix'> {
  attribution: Attribution;
  /** Writes each candidate's fix. */
  fixWriter: ModelClient;
  /** Candidates considered first (default 3); past them the ranking goes on while the budget lasts. */
  top?: number;
  /** Most replays, both phases together (default: twice `top`). */
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
  // The top candidates first, then on down the ranking: every model call, ranked ones first.
  const ranking = candidateSteps(options.attribution, callSteps, callSteps.size);
  const attempts: Attempt[] = [];
  const tryStep = stepReplayer(options, attempts);
  let flipped: Extract<Attempt, { status: 'replayed' }> | undefined;
  for (const [rank, candidate] of ranking.entries()) {
    if (flipped || attempts.length >= budget) break;
    const ranked =
      rank < top
        ? `candidate ${rank + 1} of ${candidates.length}`
        : `rank ${rank + 1} (past the top ${candidates.length}: no replay has flipped yet)`;
    const reason =
      candidate.step === options.attribution.step
        ? options.attribution.reason
        : `the ${options.attribution.method} attribution ranks this step #${rank + 1} among the candidates for the decisive error${candidate.score === undefined ? '' : ` (score ${candidate.score.toFixed(2)})`}`;
    const attempt = await tryStep(candidate, 'candidate', reason, ranked);
    if (attempt.status === 'replayed' && attempt.flipped) flipped = attempt;
  }
  if (!flipped) {
    const tried = new Set(attempts.map((attempt) => attempt.step));
    const untried = [...callSteps.keys()].filter((step) => !tried.has(step)).sort((a, b) => a - b);
    return {
      verified: null,
      attempts,
      replays: attempts.length,
      candidates: candidates.length,
      untried,
    };
  }
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
