/**
 * Hybrid: All-at-Once names the agent, then Step-by-Step judges that agent's steps in order.
 */
import { sameAgent } from '../../trace/agents.js';
import { askAllAtOnce } from './all-at-once.js';
import { judgeSteps } from './step-by-step.js';
import { LlmSession, UnreadableReply, type LlmRunner } from './session.js';

/** Runs Hybrid on a trace. */
export const runHybrid: LlmRunner = async (trace, client, options) => {
  const session = new LlmSession(client, trace);
  const first = await askAllAtOnce(session, trace, options.useGroundTruth !== false);
  if (first instanceof UnreadableReply) return session.unparsed('hybrid', first, 'answer');
  const steps = trace.steps
    .filter((step) => step.role !== 'human' && sameAgent(step.agent, first.agent))
    .map((step) => step.index);
  if (steps.length === 0)
    return session.finish({
      agent: first.agent,
      step: first.step,
      reason: first.reason,
      method: 'hybrid',
    });
  const judged = await judgeSteps(session, trace, steps, options, 'hybrid');
  if (judged.step !== null || judged.unparsed) return judged;
  // No step of that agent was judged decisive: keep the all-at-once step, and say so.
  return session.finish({
    agent: first.agent,
    step: first.step,
    reason: `${first.reason} (No single step of ${first.agent} was judged decisive on its own; the all-at-once step is kept.)`,
    method: 'hybrid',
  });
};
