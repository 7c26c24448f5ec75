/**
 * What a run shows about how far its verdict can be trusted, read after decoding (issue 53): how
 * many agents and steps could be named (chance is one over each), how far the favourite stands
 * from the runner-up, whether the model's top step is the named one and its speaker the named
 * agent, and whether simple rules (the most talkative agent, the first agent to speak) agree. An
 * unfamiliar run's stated figures are fitted on these, held out one system at a time
 * (train/statement-fit.ts), never on a trace's id, name or position in a dataset.
 */
import type { Trace } from '../../../trace/model.js';
import { hasClearFavourite } from './clear-favourite.js';
import type { Decision } from './decode.js';

/** The agent signals, in column order. */
export const AGENT_SIGNAL_NAMES = [
  'log_candidate_agents',
  'favourite_margin',
  'named_probability',
  'top_step_agrees',
  'most_talkative_agrees',
  'first_speaker_agrees',
  'clear_favourite',
] as const;

/** The step signals, in column order. */
export const STEP_SIGNAL_NAMES = [
  'log_candidate_steps',
  'named_is_top_step',
  'named_step_score',
  'step_margin',
  'clear_favourite',
] as const;

/** The signals of a run and the chance figures (one over the candidates) they are floored at. */
export interface StatementSignals {
  agent: number[];
  step: number[];
  /** How many agents and steps could be named. */
  agents: number;
  steps: number;
}

/** The candidate agent with the most candidate steps; ties go to the first to speak. */
function mostTalkative(trace: Trace, decision: Decision, agents: ReadonlySet<string>): string {
  const counts = new Map<string, number>();
  trace.steps.forEach((step, index) => {
    if (decision.candidate(index) && agents.has(step.agent))
      counts.set(step.agent, (counts.get(step.agent) ?? 0) + 1);
  });
  let best = '';
  let most = 0;
  for (const [agent, count] of counts) if (count > most) [best, most] = [agent, count];
  return best;
}

/** The signals of a decoded run (`agents`: the candidate agents, most likely first). */
export function statementSignals(
  trace: Trace,
  agents: readonly { agent: string; probability: number }[],
  decision: Decision,
): StatementSignals {
  const names = new Set(agents.map((entry) => entry.agent));
  const named = agents.find((entry) => entry.agent === decision.agent)?.probability ?? 0;
  const [first, second] = agents;
  const margin = (first?.probability ?? 0) - (second?.probability ?? 0);
  const firstSpeaker = trace.steps.find(
    (step, index) => decision.candidate(index) && names.has(step.agent),
  )?.agent;
  const clear = hasClearFavourite(agents) ? 1 : 0;
  const steps = decision.joint.filter((_, index) => decision.candidate(index)).length;
  const [top, runnerUp] = decision.ranked;
  const flag = (value: boolean) => (value ? 1 : 0);
  return {
    agents: Math.max(1, agents.length),
    steps: Math.max(1, steps),
    agent: [
      Math.log(Math.max(1, agents.length)),
      margin,
      named,
      flag(trace.steps[decision.top.step]?.agent === decision.agent),
      flag(mostTalkative(trace, decision, names) === decision.agent),
      flag(firstSpeaker === decision.agent),
      clear,
    ],
    step: [
      Math.log(Math.max(1, steps)),
      flag(decision.best.step === decision.top.step),
      decision.best.score,
      (top?.score ?? 0) - (runnerUp?.score ?? 0),
      clear,
    ],
  };
}
