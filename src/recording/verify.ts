/**
 * Verifying an attribution by counterfactual replay: the attribution's candidate steps are
 * replayed in its order (the named step first), each with a fix a model writes for it, until one
 * flips the run's outcome or the budget of replays is spent. The first that flips is the verified
 * decisive step.
 */
import type { Attribution, Candidate } from '../attribution/method.js';
import { UserError } from '../errors.js';
import type { ModelClient } from '../llm/client.js';
import { describeError } from '../errors.js';
import { describeFix, writeFix, type Fix } from './fix.js';
import { replay, replayableRecording, type ReplayOptions, type ReplayResult } from './replay.js';

/** One candidate tried. */
export type Attempt =
  | ({ status: 'replayed'; score: number } & Pick<
      ReplayResult,
      'step' | 'agent' | 'flipped' | 'run' | 'calls'
    > & {
        fix: Fix;
      })
  | { status: 'failed'; step: number; agent: string; score: number; error: string };

/** The verified decisive step. */
export interface Verified {
  step: number;
  agent: string;
  /** Replays it took to find it (this one included). */
  replays: number;
  /** The replayed run that flipped. */
  run: string;
  fix: Fix;
}

/** What verifying found. */
export interface Verification {
  verified: Verified | null;
  /** Candidates in the order tried. */
  attempts: Attempt[];
  replays: number;
  /** How many candidates were eligible (the top K model-call steps). */
  candidates: number;
}

/** Settings of a verification. */
export interface VerifyOptions extends Omit<ReplayOptions, 'step' | 'fix'> {
  attribution: Attribution;
  /** Writes each candidate's fix. */
  fixWriter: ModelClient;
  /** Candidates considered (default 3). */
  top?: number;
  /** Most replays (default: `top`). */
  budget?: number;
}

/**
 * The candidate steps to replay, best first: the attribution's named step, then its candidates in
 * the attribution's order (the offline method's follow its decoding, not the top score), kept to
 * the run's model calls (a tool's output follows from the call before it).
 */
export function candidateSteps(
  attribution: Attribution,
  callSteps: ReadonlySet<number>,
  top: number,
): Candidate[] {
  const listed = attribution.candidates ?? [];
  const named = listed.find((candidate) => candidate.step === attribution.step);
  const ranked = named
    ? [named, ...listed.filter((candidate) => candidate !== named)]
    : [...listed];
  if (!named && attribution.step !== null && attribution.agent !== null)
    ranked.unshift({
      step: attribution.step,
      agent: attribution.agent,
      score: attribution.confidence ?? 1,
    });
  const seen = new Set<number>();
  return ranked
    .filter((candidate) => {
      if (!callSteps.has(candidate.step) || seen.has(candidate.step)) return false;
      seen.add(candidate.step);
      return true;
    })
    .slice(0, top);
}

/** Replays candidates until one flips the outcome or the budget is spent. */
export async function verify(options: VerifyOptions): Promise<Verification> {
  const name = options.trace.source ?? options.trace.id;
  const recording = replayableRecording(options.trace, name);
  const top = options.top ?? 3;
  const budget = options.budget ?? top;
  const callSteps = new Set(
    recording.calls.flatMap((call) => (call.step === undefined ? [] : [call.step])),
  );
  const candidates = candidateSteps(options.attribution, callSteps, top);
  if (candidates.length === 0)
    throw new UserError(
      `${name}: the attribution names no step that is a model call, so there is nothing to replay`,
    );
  const log = options.log ?? (() => {});
  const attempts: Attempt[] = [];
  let replays = 0;
  for (const [rank, candidate] of candidates.entries()) {
    if (replays >= budget) break;
    const reason =
      candidate.step === options.attribution.step
        ? options.attribution.reason
        : `the ${options.attribution.method} attribution ranks this step #${rank + 1} among the candidates for the decisive error (score ${candidate.score.toFixed(2)})`;
    log(
      `candidate ${rank + 1} of ${candidates.length}: step ${candidate.step} (${candidate.agent}); writing a fix`,
    );
    const fix = await writeFix(options.fixWriter, options.trace, candidate.step, reason);
    log(`fix for step ${candidate.step}: ${describeFix(fix)}`);
    replays += 1;
    try {
      const result = await replay({ ...options, step: candidate.step, fix });
      attempts.push({
        status: 'replayed',
        score: candidate.score,
        step: result.step,
        agent: result.agent,
        flipped: result.flipped,
        run: result.run,
        calls: result.calls,
        fix,
      });
      if (result.flipped)
        return {
          verified: { step: result.step, agent: result.agent, replays, run: result.run, fix },
          attempts,
          replays,
          candidates: candidates.length,
        };
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      // A replay that diverged says nothing about the step; the next candidate may still flip.
      log(`step ${candidate.step}: ${describeError(error)}`);
      attempts.push({
        status: 'failed',
        step: candidate.step,
        agent: candidate.agent,
        score: candidate.score,
        error: error.message,
      });
    }
  }
  return { verified: null, attempts, replays, candidates: candidates.length };
}

const times = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * What verifying found, in one line: the verified step and the replays it took, or that none of
 * the K candidates flipped; when the budget ran out before all K were replayed, how many were.
 */
export function describeVerification(found: Verification): string {
  const verified = found.verified;
  const used = `${times(found.replays, 'replay')} used`;
  if (verified)
    return `verified: step ${verified.step} (${verified.agent}) is decisive: fixing it flipped the outcome (${used}; replayed run ${verified.run})`;
  if (found.replays < found.candidates)
    return `not verified: no flip in ${times(found.replays, 'replay')} of the top ${times(found.candidates, 'candidate step')} (the budget ran out; ${found.candidates - found.replays} not tried)`;
  return `not verified: none of ${times(found.candidates, 'candidate step')} flipped the outcome (${used})`;
}
