/**
 * The step reported for a run unlike the step-labelled training runs (settings.ts,
 * `unfamiliarStep: 'first-failing'`): the named agent's earliest step that went wrong as far as the run
 * shows, read from the step features alone, so it means the same in any system.
 */
import type { Trace } from '../../trace/model.js';
import { FEATURE_NAMES, type FeatureName } from './feature-names.js';

const columns = (names: readonly FeatureName[]) => names.map((name) => FEATURE_NAMES.indexOf(name));

/** What follows the step rejects its output: a failing tool output, a correction, no progress. */
const REJECTED = columns(['next_error', 'next_correction', 'next_review_no_progress']);
/** The step acts or asserts rather than talks (a greeting, a question). */
const ACTING = columns([
  'has_tool_calls',
  'has_code',
  'novel_numbers_log',
  'claim_without_tool',
  'conclusion',
]);

/** Why a step was chosen. */
export type FirstFailingWhy = 'rejected' | 'acting' | 'first';

/** How a reason names the step chosen for each `why` ("<agent>'s <text>"). */
export const FIRST_FAILING_TEXT: Readonly<Record<FirstFailingWhy, string>> = {
  rejected: 'first step that the next steps reject (a failing output, a correction, no progress)',
  acting: 'first substantive step (nothing it did is rejected)',
  first: 'first step',
};

/**
 * The agent's first candidate step whose output what follows rejects; else its first that acts
 * (calls a tool, writes code, brings a figure new to the run, claims or concludes); else its
 * first. `candidate(step)` says which steps may be named. -1 when the agent has none.
 */
export function firstFailingStep(
  trace: Trace,
  rows: readonly (readonly number[])[],
  candidate: (step: number) => boolean,
  agent: string,
): { step: number; why: FirstFailingWhy } {
  let acting = -1;
  let first = -1;
  for (let step = 0; step < trace.steps.length; step += 1) {
    if (trace.steps[step]!.agent !== agent || !candidate(step)) continue;
    const row = rows[step]!;
    if (REJECTED.some((column) => row[column]! > 0)) return { step, why: 'rejected' };
    if (acting === -1 && ACTING.some((column) => row[column]! > 0)) acting = step;
    if (first === -1) first = step;
  }
  return acting !== -1 ? { step: acting, why: 'acting' } : { step: first, why: 'first' };
}
