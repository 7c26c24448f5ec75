/**
 * What verifying found, in words: the summary line `faultline verify` prints (and stores with the
 * verdict), and one line per replay tried.
 */
import type { Attempt, EarlierSearch, Verification } from './verify-types.js';

const times = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

const stepList = (steps: readonly number[]) =>
  `${steps.length === 1 ? 'step' : 'steps'} ${steps.slice(0, 12).join(', ')}${steps.length > 12 ? ', …' : ''}`;

/** What is known of the model calls before the verified step, as a clause. */
export function describeEarlier(earlier: EarlierSearch): string {
  const count = earlier.steps.length;
  if (count === 0) return 'no model call comes before it';
  const all = count === 1 ? 'the one earlier model call' : `all ${count} earlier model calls`;
  if (earlier.replayed.length === count) return `fixes at ${all} were tried and none flipped it`;
  const gaps = [
    earlier.untried.length > 0
      ? `${stepList(earlier.untried)} not tried (the budget ran out; raise --budget to try them)`
      : '',
    earlier.failed.length > 0 ? `${stepList(earlier.failed)} could not be replayed` : '',
  ].filter(Boolean);
  return `earlier steps were not all tried: of ${times(count, 'earlier model call')}, ${earlier.replayed.length} tried without a flip, ${gaps.join(', ')}`;
}

/**
 * What verifying found, in one line: the verified step (the earliest found to flip), the replays
 * it took and whether every earlier model call was tried; or that no replay flipped, which steps
 * were tried (the top K candidates, then on down the ranking) and which were not.
 */
export function describeVerification(found: Verification): string {
  const verified = found.verified;
  const used = `${times(found.replays, 'replay')} used`;
  if (verified) {
    const later =
      verified.firstFlipped === verified.step
        ? ''
        : `; a fix at the later step ${verified.firstFlipped} flipped it too, but step ${verified.step} comes first`;
    const earlier = found.earlier ? `; ${describeEarlier(found.earlier)}` : '';
    return `verified: step ${verified.step} (${verified.agent}) is decisive: fixing it flipped the outcome (${used}; replayed run ${verified.run})${later}${earlier}`;
  }
  const untried = found.untried ?? [];
  const tried = found.attempts.map((attempt) => attempt.step);
  const past =
    tried.length > found.candidates
      ? `the top ${times(found.candidates, 'candidate')}, then down the ranking`
      : `of the top ${times(found.candidates, 'candidate step')}`;
  if (untried.length === 0)
    return `not verified: no fix flipped the outcome; every model call was replayed (${used}: ${stepList(tried)})`;
  return `not verified: no flip in ${times(found.replays, 'replay')} (${stepList(tried)}, ${past}); ${stepList(untried)} not tried (the budget ran out; raise --budget to try them)`;
}

/** One replay tried, as a line: the step, why it was tried, and whether it flipped. */
export function describeAttempt(attempt: Attempt): string {
  const why = [
    attempt.agent,
    attempt.score === undefined ? '' : `score ${attempt.score.toFixed(2)}`,
    attempt.search === 'earlier' ? 'an earlier step' : '',
  ]
    .filter(Boolean)
    .join(', ');
  return attempt.status === 'replayed'
    ? `step ${attempt.step} (${why}): ${attempt.flipped ? 'flipped' : 'did not flip'}`
    : `step ${attempt.step} (${why}): replay failed: ${attempt.error}`;
}
