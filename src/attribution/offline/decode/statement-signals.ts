/**
 * What a run shows about how far its verdict can be trusted, read after decoding (issue 53): how
 * many agents and steps could be named (chance is one over each), how likely the model finds the
 * named agent and how far the favourite stands from the runner-up, and the named step's score and
 * whether it is the model's top step. An unfamiliar run's stated figures are fitted on these, held
 * out one system at a time (train/statement-fit.ts), never on a trace's id, name or position in a
 * dataset. Tried and dropped: agreement with the most talkative agent and the first speaker, the
 * top step's speaker, a clear favourite (docs/EXPERIMENTS.md).
 */
import type { Decision } from './decode.js';

/**
 * The agent signals, in column order: the log of the named agent's probability and the margin of
 * the two most likely agents (the ones whose effect within a system held on every system left out;
 * docs/MODEL.md, Stated figures).
 */
export const AGENT_SIGNAL_NAMES = ['log_named_probability', 'favourite_margin'] as const;

/** The step signals, in column order: the log of the named step's joint score, and whether it is the top step. */
export const STEP_SIGNAL_NAMES = ['log_named_step_score', 'named_is_top_step'] as const;

/** The signals of a run and the chance figures (one over the candidates) they are floored at. */
export interface StatementSignals {
  agent: number[];
  step: number[];
  /** How many agents and steps could be named. */
  agents: number;
  steps: number;
}

/** The signals of a decoded run (`agents`: the candidate agents, most likely first). */
export function statementSignals(
  agents: readonly { agent: string; probability: number }[],
  decision: Decision,
): StatementSignals {
  const named = agents.find((entry) => entry.agent === decision.agent)?.probability ?? 0;
  const [first, second] = agents;
  const steps = decision.joint.filter((_, index) => decision.candidate(index)).length;
  return {
    agents: Math.max(1, agents.length),
    steps: Math.max(1, steps),
    agent: [Math.log(named + 1e-9), (first?.probability ?? 0) - (second?.probability ?? 0)],
    step: [Math.log(decision.best.score + 1e-9), decision.best.step === decision.top.step ? 1 : 0],
  };
}
