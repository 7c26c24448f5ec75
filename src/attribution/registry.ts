/**
 * The registry of attribution methods. `offline` is the default; names are listed in errors.
 */
import { UserError } from '../errors.js';
import { createLlmMethod, isLlmMethod, llmMethodNames, type LlmOptions } from './llm/catalog.js';
import { createOfflineMethod } from './offline/attribute/attributor.js';
import { divergeMethod } from './diverge/method.js';
import { firstAgentMethod } from './first-agent.js';
import { spectrumMethod } from './spectrum/method.js';
import { COMBINED, createCombinedMethod } from './spectrum/combined.js';
import type { AttributionMethod } from './method.js';

/** Options that choose and configure a method. */
export interface MethodOptions {
  /** Model file for the offline method (the shipped one by default). */
  modelPath?: string;
  /** Model and call settings for the LLM methods (`model` is `provider:model`). */
  llm?: LlmOptions;
}

type MethodFactory = (options: MethodOptions) => AttributionMethod;

/** A registered method: how to make it, and whether it compares with a passing run. */
interface MethodEntry {
  description: string;
  create: MethodFactory;
  /** True for methods that need a passing run of the same task (`AttributeOptions.reference`). */
  needsReference?: boolean;
  /** True for methods that need other runs of the same task (`AttributeOptions.runs`). */
  needsRuns?: boolean;
}

const factories = new Map<string, MethodEntry>([
  [
    'offline',
    {
      description: createOfflineMethod().description,
      create: (options) => createOfflineMethod(options.modelPath),
    },
  ],
  ['first-agent', { description: firstAgentMethod.description, create: () => firstAgentMethod }],
  [
    divergeMethod.name,
    { description: divergeMethod.description, create: () => divergeMethod, needsReference: true },
  ],
  [
    spectrumMethod.name,
    { description: spectrumMethod.description, create: () => spectrumMethod, needsRuns: true },
  ],
  [
    COMBINED,
    {
      description: createCombinedMethod().description,
      create: (options) => createCombinedMethod(options.modelPath),
      needsRuns: true,
    },
  ],
  ...llmMethodNames().map(({ name, description }): [string, MethodEntry] => [
    name,
    { description, create: (options) => createLlmMethod(name, options.llm ?? {}) },
  ]),
]);

/** The default method: offline, no API key. */
export const DEFAULT_METHOD = 'offline';

/** A registered method as listed (the CLI's help, `GET /api/methods`). */
export interface MethodListing {
  name: string;
  description: string;
  /** It compares with a passing run (diverge): a list that offers methods for one run leaves it out. */
  needsReference?: boolean;
  /** It compares with the other runs of the task (spectrum, combined). */
  needsRuns?: boolean;
  /** It asks an LLM (a model to name). */
  needsModel?: boolean;
}

/** Names and descriptions of every registered method, with what each needs. */
export function listMethods(): MethodListing[] {
  return [...factories.entries()].map(([name, entry]) => ({
    name,
    description: entry.description,
    ...(entry.needsReference ? { needsReference: true } : {}),
    ...(entry.needsRuns ? { needsRuns: true } : {}),
    ...(isLlmMethod(name) ? { needsModel: true } : {}),
  }));
}

/** True when the method `name` compares a run with a passing run of the same task (`diverge`). */
export const needsReference = (name: string): boolean =>
  factories.get(name)?.needsReference === true;

/** True when the method `name` compares a run with other runs of its task (`spectrum`). */
export const needsRuns = (name: string): boolean => factories.get(name)?.needsRuns === true;

/** The method registered as `name`, or a UserError listing the valid names. */
export function getMethod(name: string, options: MethodOptions = {}): AttributionMethod {
  const entry = factories.get(name);
  if (!entry)
    throw new UserError(
      `unknown method "${name}"; choose one of: ${[...factories.keys()].join(', ')}`,
    );
  return entry.create(options);
}
