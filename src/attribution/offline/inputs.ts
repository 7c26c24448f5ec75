/**
 * What the scorers read from a trace: step feature rows, the candidate mask, and step
 * probabilities; plus which traces are usable for training. Shared by training and attributing.
 */
import type { Trace } from '../../trace/model.js';
import { candidateMask, computeFeatures } from './features.js';
import { scoreRows, softmax, type LinearScorer } from './scoring.js';

/** True when a trace has a step label inside the trace and an agent label. */
export function isTrainable(trace: Trace): boolean {
  const step = trace.labels?.step;
  return (
    step !== undefined &&
    Number.isInteger(step) &&
    step >= 0 &&
    step < trace.steps.length &&
    Boolean(trace.labels?.agent)
  );
}

/** A trace's step rows and candidate mask; `useGroundTruth: false` hides the expected answer. */
export function stepInputs(
  trace: Trace,
  useGroundTruth = true,
): { rows: number[][]; mask: boolean[] } {
  const view =
    useGroundTruth || trace.groundTruth === undefined
      ? trace
      : { ...trace, groundTruth: undefined };
  return { rows: computeFeatures(view), mask: candidateMask(trace) };
}

/** Step probabilities under a step scorer. */
export function stepProbabilitiesOf(
  scorer: LinearScorer,
  rows: number[][],
  mask: boolean[],
): number[] {
  return softmax(scoreRows(scorer, rows), mask);
}
