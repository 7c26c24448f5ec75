/**
 * The LLM methods bound to a model client, and the library API:
 * `allAtOnce(trace, {model: 'openai:gpt-4o'})` returns {agent, step, reason, usage, ...}.
 */
import { UserError } from '../../errors.js';
import { createModelClient, type ModelClient } from '../../llm/client.js';
import type { Trace } from '../../trace/model.js';
import type { Attribution, AttributeOptions, AttributionMethod } from '../method.js';
import { checkLlmOptions, llmMethodNames, type LlmOptions } from './catalog.js';

export type { LlmOptions } from './catalog.js';
import { runAllAtOnce } from './all-at-once.js';
import { runBinarySearch } from './binary-search.js';
import { runHybrid } from './hybrid.js';
import { runStepByStep } from './step-by-step.js';

type Runner = (
  trace: Trace,
  client: ModelClient,
  options: AttributeOptions,
) => Promise<Attribution>;

const RUNNERS = new Map<string, Runner>([
  ['all-at-once', runAllAtOnce],
  ['step-by-step', runStepByStep],
  ['binary-search', runBinarySearch],
  ['hybrid', runHybrid],
]);

function clientOf(method: string, options: LlmOptions): ModelClient {
  checkLlmOptions(method, options);
  if (options.client) return options.client;
  const { model, useGroundTruth, maxCalls, client, ...settings } = options;
  return createModelClient({ ...settings, model: model! });
}

/** A registered LLM method bound to a model; a missing model or key fails here, before any call. */
export function createLlmMethod(name: string, options: LlmOptions): AttributionMethod {
  const run = RUNNERS.get(name);
  const entry = llmMethodNames().find((method) => method.name === name);
  if (!run || !entry)
    throw new UserError(
      `unknown LLM method "${name}"; choose one of: ${[...RUNNERS.keys()].join(', ')}`,
    );
  const client = clientOf(name, options);
  return {
    name,
    description: entry.description,
    attribute: (trace, callOptions = {}) => run(trace, client, { ...options, ...callOptions }),
  };
}

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
