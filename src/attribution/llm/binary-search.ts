/**
 * Binary Search: repeatedly ask which half of the current range holds the decisive error, at most
 * ⌈log2 N⌉ choices. An unreadable choice is retried once, then reported: never decided by a coin.
 */
import { blamableSteps } from '../../trace/agents.js';
import { halfPrompt, taskHeader } from './prompts.js';
import { halfReplySchema, parseHalfReply } from './replies.js';
import { LlmSession, UnreadableReply, type LlmRunner } from './session.js';

/** Runs Binary Search on a trace. */
export const runBinarySearch: LlmRunner = async (trace, client, options) => {
  const session = new LlmSession(client, trace);
  const header = taskHeader(trace, options.useGroundTruth !== false);
  // The human's opening request (and a system prompt before it) is never the decisive step.
  let low = blamableSteps(trace)[0] ?? 0;
  let high = trace.steps.length - 1;
  const reasons: string[] = [];
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const log = session.log(
      trace.steps.slice(0, high + 1).map((step) => step.index),
      header,
    );
    const choice = await session.ask(
      halfPrompt(header, log, low, middle, high),
      halfReplySchema,
      'half',
      parseHalfReply,
    );
    if (choice instanceof UnreadableReply)
      return session.unparsed(
        'binary-search',
        choice,
        `choice between steps ${low}-${middle} and ${middle + 1}-${high}`,
      );
    reasons.push(
      `${choice.half} half of ${low}-${high}${choice.reason ? `: ${choice.reason}` : ''}`,
    );
    if (choice.half === 'earlier') high = middle;
    else low = middle + 1;
  }
  const step = trace.steps[low]!;
  return session.finish({
    agent: step.agent,
    step: low,
    reason: reasons.length > 0 ? reasons.join(' → ') : 'Only one candidate step.',
    method: 'binary-search',
  });
};
