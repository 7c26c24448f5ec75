/**
 * The LLM methods as the registry sees them: names, descriptions, and a lazy wrapper that checks
 * the model and key at once but loads the AI SDK only when a trace is actually attributed.
 */
import { UserError } from '../../errors.js';
import type { ModelClientOptions } from '../../llm/client.js';
import { parseModelSpec } from '../../llm/model-spec.js';
import { providerNames, resolveConnection } from '../../llm/provider-catalog.js';
import type { AttributeOptions, AttributionMethod } from '../method.js';

/** Options of an LLM method: the model (`provider:model`) or a ready client, plus call settings. */
export interface LlmOptions extends AttributeOptions, Partial<Omit<ModelClientOptions, 'model'>> {
  model?: string;
  client?: import('../../llm/client.js').ModelClient;
}

const METHODS: { name: string; description: string }[] = [
  { name: 'all-at-once', description: 'LLM: one call over the whole log' },
  {
    name: 'step-by-step',
    description: 'LLM: judge each step in order, stop at the first error (≤ N calls)',
  },
  {
    name: 'binary-search',
    description: 'LLM: halve the range holding the error (≤ ⌈log2 N⌉ calls)',
  },
  {
    name: 'hybrid',
    description: "LLM: all-at-once names the agent, then step-by-step over that agent's steps",
  },
];

/** Names and descriptions of the LLM methods. */
export function llmMethodNames(): { name: string; description: string }[] {
  return METHODS.map((method) => ({ ...method }));
}

/** Checks that a method can run: a model named `provider:model` whose key and endpoint are set. */
export function checkLlmOptions(method: string, options: LlmOptions): void {
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
    });
}

/** A registered LLM method: checked now, loaded on first use. */
export function lazyLlmMethod(name: string, options: LlmOptions): AttributionMethod {
  const entry = METHODS.find((method) => method.name === name);
  if (!entry)
    throw new UserError(
      `unknown LLM method "${name}"; choose one of: ${METHODS.map((method) => method.name).join(', ')}`,
    );
  checkLlmOptions(name, options);
  let loaded: Promise<AttributionMethod> | undefined;
  return {
    name,
    description: entry.description,
    async attribute(trace, callOptions) {
      loaded ??= import('./methods.js').then((module) => module.createLlmMethod(name, options));
      return (await loaded).attribute(trace, callOptions);
    },
  };
}
