/**
 * The LLM methods in one place: their names, descriptions and runners, the options they take, the
 * up-front checks (model named, key and endpoint set) and the method objects the registry hands
 * out. A runner and the AI SDK are loaded only when a trace is first attributed, so commands that
 * never call a model start fast and a missing key fails before any trace is read.
 */
import { UserError } from '../../errors.js';
import type { ModelClient, ModelClientOptions } from '../../llm/client.js';
import { parseModelSpec } from '../../llm/model-spec.js';
import { providerNames, resolveConnection } from '../../llm/provider-catalog.js';
import type { AttributeOptions, AttributionMethod } from '../method.js';
import type { LlmRunner } from './session.js';

/** Whose prompts an LLM method sends: faultline's own (the default) or the Who&When paper's. */
export const PROMPT_STYLES = ['faultline', 'paper'] as const;
export type PromptStyle = (typeof PROMPT_STYLES)[number];

/** Options of an LLM method: the model (`provider:model`) or a ready client, plus call settings. */
export interface LlmOptions extends AttributeOptions, Partial<Omit<ModelClientOptions, 'model'>> {
  model?: string;
  client?: ModelClient;
  /** `paper`: the Who&When paper's prompts and reply reading (paper-methods.ts). */
  prompts?: PromptStyle;
}

/** The LLM methods and what they do. */
const DESCRIPTIONS = {
  'all-at-once': 'LLM: one call over the whole log',
  'step-by-step': 'LLM: judge each step in order, stop at the first error (≤ N calls)',
  'binary-search': 'LLM: halve the range holding the error (≤ ⌈log2 N⌉ calls)',
  hybrid: "LLM: all-at-once names the agent, then step-by-step over that agent's steps",
};
type LlmMethodName = keyof typeof DESCRIPTIONS;

/** Each method's runner, loaded on first use (with the AI SDK behind it). */
const RUNNERS: Record<LlmMethodName, () => Promise<LlmRunner>> = {
  'all-at-once': async () => (await import('./all-at-once.js')).runAllAtOnce,
  'step-by-step': async () => (await import('./step-by-step.js')).runStepByStep,
  'binary-search': async () => (await import('./binary-search.js')).runBinarySearch,
  hybrid: async () => (await import('./hybrid.js')).runHybrid,
};

/** The methods as the Who&When paper's code runs them (`--prompts paper`); it has no hybrid. */
const PAPER_RUNNERS: Partial<Record<LlmMethodName, () => Promise<LlmRunner>>> = {
  'all-at-once': async () => (await import('./paper-methods.js')).runPaperAllAtOnce,
  'step-by-step': async () => (await import('./paper-methods.js')).runPaperStepByStep,
  'binary-search': async () => (await import('./paper-methods.js')).runPaperBinarySearch,
};

const isName = (name: string): name is LlmMethodName => Object.hasOwn(DESCRIPTIONS, name);

/** Names and descriptions of the LLM methods. */
export function llmMethodNames(): { name: string; description: string }[] {
  return Object.entries(DESCRIPTIONS).map(([name, description]) => ({ name, description }));
}

/** True when `name` is an LLM method. */
export function isLlmMethod(name: string): boolean {
  return isName(name);
}

/**
 * True when the LLM method asks for the run's failure modes (in the same reply as agent and step);
 * the paper's prompts ask for none.
 */
export function namesModes(name: string, prompts?: PromptStyle): boolean {
  return prompts !== 'paper' && (name === 'all-at-once' || name === 'hybrid');
}

/** The runner of a method under a prompt style, or a UserError for a style it lacks. */
function runnerOf(name: LlmMethodName, prompts: unknown): () => Promise<LlmRunner> {
  if (prompts === undefined || prompts === 'faultline') return RUNNERS[name];
  if (prompts !== 'paper')
    throw new UserError(
      `unknown prompts "${String(prompts)}"; choose one of: ${PROMPT_STYLES.join(', ')}`,
    );
  const paper = PAPER_RUNNERS[name];
  if (!paper)
    throw new UserError(
      `${name} has no paper prompts: the Who&When paper's methods are ${Object.keys(PAPER_RUNNERS).join(', ')}; choose one of those, or drop --prompts paper`,
    );
  return paper;
}

/** Checks that a method can run: a model named `provider:model` whose key and endpoint are set. */
function checkLlmOptions(method: string, options: LlmOptions): void {
  if (options.client) return;
  if (!options.model)
    throw new UserError(
      `${method} needs a model: add --model provider:model (e.g. openai:gpt-4o, anthropic:claude-sonnet-4-5, ollama:llama3.1); --method offline needs none`,
    );
  const spec = parseModelSpec(options.model, providerNames());
  if (!options.languageModel)
    resolveConnection(spec, {
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.environmentKey === false ? { environmentKey: false } : {}),
    });
}

/** The client a method talks to: the one given, or one made from the options. */
async function clientOf(options: LlmOptions): Promise<ModelClient> {
  if (options.client) return options.client;
  const { createModelClient } = await import('../../llm/client.js');
  const { useGroundTruth, maxCalls, client, model, prompts, ...settings } = options;
  // checkLlmOptions has made sure a model is named when no client is given.
  return createModelClient({ ...settings, model: model ?? '' });
}

/**
 * The LLM method `name` bound to a model: checked now (unknown method, missing model or key fail
 * here, before any call), loaded on first use.
 */
export function createLlmMethod(name: string, options: LlmOptions): AttributionMethod {
  if (!isName(name))
    throw new UserError(
      `unknown LLM method "${name}"; choose one of: ${Object.keys(DESCRIPTIONS).join(', ')}`,
    );
  const runner = runnerOf(name, options.prompts);
  checkLlmOptions(name, options);
  let loaded: Promise<[LlmRunner, ModelClient]> | undefined;
  return {
    name,
    description: DESCRIPTIONS[name],
    async attribute(trace, callOptions = {}) {
      loaded ??= Promise.all([runner(), clientOf(options)]);
      const [run, client] = await loaded;
      return run(trace, client, { ...options, ...callOptions });
    },
  };
}
