/**
 * All-at-Once: one call over the whole log names the agent and the step.
 */
import type { Trace } from '../../trace/model.js';
import { foundModes } from '../found-mode.js';
import { allAtOncePrompt, taskHeader } from './prompts.js';
import { attributionReplySchema, parseAttributionReply } from './replies.js';
import { LlmSession, UnreadableReply, type LlmRunner } from './session.js';

/** The agent and step named by one call, or an unreadable reply; shared with hybrid. */
export async function askAllAtOnce(session: LlmSession, trace: Trace, useGroundTruth: boolean) {
  const header = taskHeader(trace, useGroundTruth);
  const log = session.log(
    trace.steps.map((step) => step.index),
    header,
  );
  return session.ask(allAtOncePrompt(header, log), attributionReplySchema, 'attribution', (text) =>
    parseAttributionReply(text, trace),
  );
}

/** Runs All-at-Once on a trace. */
export const runAllAtOnce: LlmRunner = async (trace, client, options) => {
  const session = new LlmSession(client, trace);
  const reply = await askAllAtOnce(session, trace, options.useGroundTruth !== false);
  if (reply instanceof UnreadableReply) return session.unparsed('all-at-once', reply, 'answer');
  return session.finish({
    agent: reply.agent,
    step: reply.step,
    reason: reply.reason,
    method: 'all-at-once',
    ...(reply.modes ? { modes: foundModes(reply.modes) } : {}),
  });
};
