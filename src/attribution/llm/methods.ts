/**
 * The LLM methods as library functions, as the original tool offers them:
 * `allAtOnce(trace, {model: 'openai:gpt-4o'})` returns {agent, step, reason, usage, ...}.
 */
import type { Trace } from '../../trace/model.js';
import type { Attribution } from '../method.js';
import { createLlmMethod, type LlmOptions } from './catalog.js';

export { createLlmMethod, type LlmOptions } from './catalog.js';

const run = (name: string) => async (trace: Trace, options: LlmOptions) =>
  createLlmMethod(name, options).attribute(trace, options);

/** All-at-Once: one call over the whole log. */
export const allAtOnce: (trace: Trace, options: LlmOptions) => Promise<Attribution> =
  run('all-at-once');
/** Step-by-Step: a verdict per step, stopping at the first error. */
export const stepByStep: (trace: Trace, options: LlmOptions) => Promise<Attribution> =
  run('step-by-step');
/** Binary Search: at most ⌈log2 N⌉ choices of half. */
export const binarySearch: (trace: Trace, options: LlmOptions) => Promise<Attribution> =
  run('binary-search');
/** Hybrid: all-at-once for the agent, step-by-step over its steps. */
export const hybrid: (trace: Trace, options: LlmOptions) => Promise<Attribution> = run('hybrid');
