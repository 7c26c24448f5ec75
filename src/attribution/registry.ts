/**
 * The registry of attribution methods. `offline` is the default; names are listed in errors.
 */
import { UserError } from '../errors.js';
import { createLlmMethod, llmMethodNames, type LlmOptions } from './llm/catalog.js';
import { createOfflineMethod } from './offline/attribute/attributor.js';
import { firstAgentMethod } from './first-agent.js';
import type { AttributionMethod } from './method.js';

/** Options that choose and configure a method. */
export interface MethodOptions {
  /** Model file for the offline method (the shipped one by default). */
  modelPath?: string;
  /** Model and call settings for the LLM methods (`model` is `provider:model`). */
  llm?: LlmOptions;
}

type MethodFactory = (options: MethodOptions) => AttributionMethod;

const factories = new Map<string, { description: string; create: MethodFactory }>([
  [
    'offline',
    {
      description: createOfflineMethod().description,
      create: (options) => createOfflineMethod(options.modelPath),
    },
  ],
  ['first-agent', { description: firstAgentMethod.description, create: () => firstAgentMethod }],
  ...llmMethodNames().map(
    ({ name, description }): [string, { description: string; create: MethodFactory }] => [
      name,
      { description, create: (options) => createLlmMethod(name, options.llm ?? {}) },
    ],
  ),
]);

/** The default method: offline, no API key. */
export const DEFAULT_METHOD = 'offline';

/** Names and descriptions of every registered method. */
export function listMethods(): { name: string; description: string }[] {
  return [...factories.entries()].map(([name, entry]) => ({
    name,
    description: entry.description,
  }));
}

/** The method registered as `name`, or a UserError listing the valid names. */
export function getMethod(name: string, options: MethodOptions = {}): AttributionMethod {
  const entry = factories.get(name);
  if (!entry)
    throw new UserError(
      `unknown method "${name}"; choose one of: ${[...factories.keys()].join(', ')}`,
    );
  return entry.create(options);
}
