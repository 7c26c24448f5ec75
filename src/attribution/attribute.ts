/**
 * The library entry point: `attribute(trace, {method, model})` runs a registered method on a trace,
 * e.g. `attribute(trace)` (offline) or `attribute(trace, {method: 'hybrid', model: 'openai:gpt-4o'})`.
 */
import { toTrace, type TraceInput } from '../trace/load.js';
import type { Attribution, AttributeOptions } from './method.js';
import { withMinimumConfidence } from './min-confidence.js';
import { DEFAULT_METHOD, getMethod, type MethodOptions } from './registry.js';

/** Options of `attribute`. */
export interface AttributeCallOptions extends AttributeOptions, MethodOptions {
  /** Registry name of the method; `offline` by default. */
  method?: string;
  /** `provider:model` for LLM methods (shorthand for `llm.model`). */
  model?: string;
  /** API endpoint for LLM methods (shorthand for `llm.baseUrl`). */
  baseUrl?: string;
  /** Below this agent confidence (0–1), answer "no confident attribution" (agent and step null). */
  minConfidence?: number;
}

/**
 * Names the failure-responsible agent and decisive step of a trace (a canonical trace, or a plain
 * object as the original tool takes: `{history, question, ground_truth}`).
 */
export async function attribute(
  input: TraceInput,
  options: AttributeCallOptions = {},
): Promise<Attribution> {
  const trace = await toTrace(input);
  const llm = {
    ...options.llm,
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
  };
  const method = getMethod(options.method ?? DEFAULT_METHOD, { ...options, llm });
  return withMinimumConfidence(await method.attribute(trace, options), options.minConfidence);
}
