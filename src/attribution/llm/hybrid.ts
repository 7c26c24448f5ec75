/**
 * Hybrid: All-at-Once names the agent, then Step-by-Step judges that agent's steps in order.
 */
import { blamableSteps, sameAgent } from '../../trace/agents.js';
import { foundModes } from '../found-mode.js';
import { askAllAtOnce } from './all-at-once.js';
import { judgeSteps } from './step-by-step.js';
import { LlmSession, UnreadableReply, type LlmRunner } from './session.js';

/** Runs Hybrid on a trace. */
export const runHybrid: LlmRunner = async (trace, client, options) => {
  const session = new LlmSession(client, trace);
  const first = await askAllAtOnce(session, trace, options.useGroundTruth !== false);
  if (first instanceof UnreadableReply) return session.unparsed('hybrid', first, 'answer');
  // The modes come from the first call, which asks for them with the agent and step.
  const modes = first.modes ? { modes: foundModes(first.modes) } : {};
  const steps = blamableSteps(trace).filter((index) =>
    sameAgent(trace.steps[index]!.agent, first.agent),
  );
  const speaker = trace.steps[first.step]!.agent;
  if (steps.length === 0)
    // The named agent never speaks: the step it was paired with names the agent instead.
    return session.finish({
      agent: speaker,
      step: first.step,
      reason: `${first.reason} (The model named ${first.agent}, which does not speak in the log; step ${first.step} is ${speaker}'s.)`,
      method: 'hybrid',
    });
  const judged = await judgeSteps(session, trace, steps, options, 'hybrid');
  if (judged.step !== null || judged.unparsed) return { ...judged, ...modes };
  // No step of that agent was judged decisive: keep the all-at-once step when it is the agent's,
  // else the agent's first step, so agent and step always agree; and say so.
  const step = steps.includes(first.step) ? first.step : steps[0]!;
  return session.finish({
    agent: trace.steps[step]!.agent,
    step,
    reason: `${first.reason} (No single step of ${first.agent} was judged decisive on its own; ${step === first.step ? 'the all-at-once step is kept' : `the all-at-once step ${first.step} is ${speaker}'s, so ${first.agent}'s first step is named`}.)`,
    method: 'hybrid',
    ...modes,
  });
};
