/**
 * The step reported for a run unlike the step-labelled training runs (settings.ts,
 * `unfamiliarStep: 'first-failing'`): the named agent's earliest step that went wrong as far as
 * the run shows, read from the step features alone, so it means the same in any system.
 */
import type { Trace } from '../../../trace/model.js';
import { FEATURE_NAMES, type FeatureName } from '../features/feature-names.js';

const columns = (names: readonly FeatureName[]) =>
  names.map((name) => ({ name, column: FEATURE_NAMES.indexOf(name) }));

/**
 * What marks a step as the agent's first failing one, most telling first: what follows rejects
 * its output (a failing tool output, a correction, no progress); it brings a figure new to the run
 * (a tool argument, a result or a claim nothing earlier gives), unless it browses (`unless`: what
 * it reads off a page comes from its own tool); it acts or asserts (a tool call, code, a claim, a
 * conclusion) rather than talks (a greeting, a question); it says something (a step of 200
 * characters or more, not a routing turn such as "SUGGESTED NEXT SPEAKER: Agent_Code_Executor.").
 * A tier without signals takes any step that none of its `unless` marks.
 */
const TIERS = [
  {
    why: 'rejected',
    signals: columns(['next_error', 'next_correction', 'next_review_no_progress']),
    unless: [],
  },
  { why: 'new-figure', signals: columns(['novel_numbers_log']), unless: columns(['web_action']) },
  {
    why: 'acting',
    signals: columns(['has_tool_calls', 'has_code', 'claim_without_tool', 'conclusion']),
    unless: [],
  },
  { why: 'saying', signals: [], unless: columns(['short_content']) },
] as const;

/** Why a step was chosen. */
export type FirstFailingWhy = (typeof TIERS)[number]['why'] | 'first';

/** How a reason names the step chosen for each `why` ("<agent>'s <text>"). */
export const FIRST_FAILING_TEXT: Readonly<Record<FirstFailingWhy, string>> = {
  rejected:
    'first rejected step (a failing output, a correction or a no-progress review follows it)',
  'new-figure': 'first step that brings a figure new to the run (nothing it did is rejected)',
  acting:
    'first step that acts: calls a tool, writes code, claims or concludes (nothing it did is rejected)',
  saying:
    'first step that says something (200 characters or more; nothing it did is rejected or acts)',
  first: 'first step',
};

/** The step chosen, why, and the feature that shows it (none for `first`). */
export interface FirstFailing {
  step: number;
  why: FirstFailingWhy;
  signal?: FeatureName;
}

/**
 * The agent's first candidate step whose output what follows rejects; else its first that brings
 * a figure new to the run; else its first that acts (calls a tool, writes code, claims or
 * concludes); else its first that says something; else its first. `candidate(step)` says which
 * steps may be named. Step -1 when the agent has none.
 */
export function firstFailingStep(
  trace: Trace,
  rows: readonly (readonly number[])[],
  candidate: (step: number) => boolean,
  agent: string,
): FirstFailing {
  // The best step so far is the first of the best tier found (`open`); only tiers above it are
  // still looked for, and the rejected tier ends the search.
  let best: FirstFailing | undefined;
  let open: number = TIERS.length;
  let first = -1;
  for (let step = 0; step < trace.steps.length && open > 0; step += 1) {
    if (trace.steps[step]!.agent !== agent || !candidate(step)) continue;
    const row = rows[step]!;
    for (let tier = 0; tier < open; tier += 1) {
      const { why, signals, unless } = TIERS[tier]!;
      if (unless.some(({ column }) => row[column]! > 0)) continue;
      // A tier without signals takes the step as it is.
      const hit = signals.find(({ column }) => row[column]! > 0);
      if (signals.length > 0 && !hit) continue;
      best = hit ? { step, why, signal: hit.name } : { step, why };
      open = tier;
    }
    if (first === -1) first = step;
  }
  return best ?? { step: first, why: 'first' };
}

/**
 * Among the agents at least `share` as likely as the most likely one (`agents` most likely
 * first), the one whose output what follows rejects first, with that first failing step;
 * undefined when none of them has a rejected step. Ties go to the more likely agent.
 */
export function firstRejectedAgent(
  trace: Trace,
  rows: readonly (readonly number[])[],
  candidate: (step: number) => boolean,
  agents: readonly { agent: string; probability: number }[],
  share: number,
): { agent: string; failing: FirstFailing } | undefined {
  const most = agents[0]?.probability ?? 0;
  let found: { agent: string; failing: FirstFailing } | undefined;
  for (const { agent, probability } of agents) {
    if (probability < share * most) break;
    const failing = firstFailingStep(trace, rows, candidate, agent);
    if (failing.why === 'rejected' && (!found || failing.step < found.failing.step))
      found = { agent, failing };
  }
  return found;
}
