/**
 * The LLM methods as library functions, as the original tool offers them:
 * `allAtOnce(trace, {model: 'openai:gpt-4o'})` returns {agent, step, reason, usage, ...}.
 */
import { toTrace, type TraceInput } from '../../trace/load.js';
import type { Attribution } from '../method.js';
import { createLlmMethod, type LlmOptions } from './catalog.js';

export { createLlmMethod, type LlmOptions } from './catalog.js';

/** A method as a function of a trace (or the original tool's plain object) and options. */
type LlmFunction = (trace: TraceInput, options: LlmOptions) => Promise<Attribution>;

const run =
  (name: string): LlmFunction =>
  async (input, options) => {
    // Checked before the input is read: a missing model or key is the first thing to fix.
    const method = createLlmMethod(name, options);
    return method.attribute(await toTrace(input), options);
  };

/** All-at-Once: one call over the whole log. */
export const allAtOnce: LlmFunction = run('all-at-once');
/** Step-by-Step: a verdict per step, stopping at the first error. */
export const stepByStep: LlmFunction = run('step-by-step');
/** Binary Search: at most ⌈log2 N⌉ choices of half. */
export const binarySearch: LlmFunction = run('binary-search');
/** Hybrid: all-at-once for the agent, step-by-step over its steps. */
export const hybrid: LlmFunction = run('hybrid');
