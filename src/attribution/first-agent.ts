/**
 * The simplest honest method, registered as `first-agent`: blame the first step by a non-tool,
 * non-human agent. The evaluation's baselines (src/eval/baselines.ts) score it beside the others.
 */
import type { Trace } from '../trace/model.js';
import { NO_USAGE, type Attribution, type AttributionMethod } from './method.js';

/** Index of the first step spoken by an agent (not a tool, the human or the system); 0 if none. */
export function firstAgentStep(trace: Trace): number {
  const index = trace.steps.findIndex((step) => step.role === 'agent');
  return index === -1 ? 0 : index;
}

/** The `first-agent` method. */
export const firstAgentMethod: AttributionMethod = {
  name: 'first-agent',
  description: 'baseline: the first step by a non-tool, non-human agent',
  async attribute(trace) {
    const step = firstAgentStep(trace);
    const agent = trace.steps[step]?.agent ?? 'unknown';
    const result: Attribution = {
      agent,
      step,
      reason: `Baseline: step ${step} is the first step by an agent (${agent}); no evidence was weighed.`,
      method: 'first-agent',
      usage: { ...NO_USAGE },
    };
    return result;
  },
};
