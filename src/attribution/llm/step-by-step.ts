/**
 * Step-by-Step: judge each step in order, with the log up to it, and stop at the first step judged
 * the decisive error. At most one verdict per candidate step (and at most `maxCalls` verdicts).
 */
import { blamableSteps } from '../../trace/agents.js';
import type { Trace } from '../../trace/model.js';
import type { Attribution, AttributeOptions } from '../method.js';
import { stepVerdictPrompt, taskHeader } from './prompts.js';
import { parseVerdictReply, verdictReplySchema } from './replies.js';
import { LlmSession, UnreadableReply, type LlmRunner } from './session.js';

/** Judges `candidates` in order inside an existing session; shared with hybrid. */
export async function judgeSteps(
  session: LlmSession,
  trace: Trace,
  candidates: readonly number[],
  options: AttributeOptions,
  method: string,
): Promise<Attribution> {
  const header = taskHeader(trace, options.useGroundTruth !== false);
  const limit = Math.min(candidates.length, options.maxCalls ?? candidates.length);
  for (const index of candidates.slice(0, limit)) {
    const step = trace.steps[index]!;
    const log = session.log(
      trace.steps.slice(0, index + 1).map((entry) => entry.index),
      header,
    );
    const verdict = await session.ask(
      stepVerdictPrompt(header, log, index, step.agent),
      verdictReplySchema,
      'verdict',
      parseVerdictReply,
    );
    if (verdict instanceof UnreadableReply)
      return session.unparsed(method, verdict, `verdict on step ${index}`);
    if (verdict.error)
      return session.finish({
        agent: step.agent,
        step: index,
        reason: verdict.reason || `Step ${index} was judged the decisive error.`,
        method,
      });
  }
  const judged =
    limit < candidates.length
      ? `the first ${limit} of ${candidates.length} candidate steps`
      : `all ${candidates.length} candidate steps`;
  return session.finish({
    agent: null,
    step: null,
    reason: `No step was judged the decisive error (${judged} were asked about).`,
    method,
  });
}

/**
 * Steps a model is asked about: the team's, and a participating person's (a simulated customer's)
 * once the team has spoken; never the task or the framework's messages (trace/agents.ts).
 */
function candidateSteps(trace: Trace): number[] {
  return blamableSteps(trace);
}

/** Runs Step-by-Step on a trace. */
export const runStepByStep: LlmRunner = async (trace, client, options) => {
  return judgeSteps(
    new LlmSession(client, trace),
    trace,
    candidateSteps(trace),
    options,
    'step-by-step',
  );
};
