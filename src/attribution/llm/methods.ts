/**
 * The LLM methods as registered methods and as the library API:
 * `allAtOnce(trace, {model: 'openai:gpt-4o'})` returns {agent, step, reason, usage, ...}.
 */
import { createModelClient, type ModelClient, type ModelClientOptions } from '../../llm/client.js';
import { UserError } from '../../errors.js';
import type { Trace } from '../../trace/model.js';
import type { Attribution, AttributeOptions, AttributionMethod } from '../method.js';
import { runAllAtOnce } from './all-at-once.js';
import { runBinarySearch } from './binary-search.js';
import { runHybrid } from './hybrid.js';
import { runStepByStep } from './step-by-step.js';

/** Options of an LLM method: the model (`provider:model`) or a ready client, plus call settings. */
export interface LlmOptions extends AttributeOptions, Partial<Omit<ModelClientOptions, 'model'>> {
  model?: string;
  client?: ModelClient;
}

type Runner = (
  trace: Trace,
  client: ModelClient,
  options: AttributeOptions,
) => Promise<Attribution>;

const RUNNERS = new Map<string, { description: string; run: Runner }>([
  ['all-at-once', { description: 'LLM: one call over the whole log', run: runAllAtOnce }],
  [
    'step-by-step',
    {
      description: 'LLM: judge each step in order, stop at the first error (≤ N calls)',
      run: runStepByStep,
    },
  ],
  [
    'binary-search',
    {
      description: 'LLM: halve the range holding the error (≤ ⌈log2 N⌉ calls)',
      run: runBinarySearch,
    },
  ],
  [
    'hybrid',
    {
      description: "LLM: all-at-once names the agent, then step-by-step over that agent's steps",
      run: runHybrid,
    },
  ],
]);

/** Names and descriptions of the LLM methods. */
export function llmMethodNames(): { name: string; description: string }[] {
  return [...RUNNERS.entries()].map(([name, entry]) => ({ name, description: entry.description }));
}

function clientOf(method: string, options: LlmOptions): ModelClient {
  if (options.client) return options.client;
  if (!options.model)
    throw new UserError(
      `${method} needs a model: add --model provider:model (e.g. openai:gpt-4o, anthropic:claude-sonnet-4-5, ollama:llama3.1); --method offline needs none`,
    );
  const { model, useGroundTruth, maxCalls, client, ...settings } = options;
  return createModelClient({ ...settings, model });
}

/** A registered LLM method bound to a model; the client is created on first use. */
export function createLlmMethod(name: string, options: LlmOptions): AttributionMethod {
  const entry = RUNNERS.get(name);
  if (!entry)
    throw new UserError(
      `unknown LLM method "${name}"; choose one of: ${[...RUNNERS.keys()].join(', ')}`,
    );
  // Fail fast on a missing model or key, before any trace is read.
  const client = clientOf(name, options);
  return {
    name,
    description: entry.description,
    attribute: (trace, callOptions = {}) =>
      entry.run(trace, client, { ...options, ...callOptions }),
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
