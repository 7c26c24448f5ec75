/**
 * Providers, registered by name, each a factory over the Vercel AI SDK. API keys are read when a
 * model is first needed; a missing key is one actionable line that also points at the offline method.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { createOllama } from 'ollama-ai-provider-v2';
import { UserError } from '../errors.js';
import type { ModelSpec } from './model-spec.js';

/** Connection settings; explicit values win over environment variables. */
export interface ProviderSettings {
  baseUrl?: string;
  apiKey?: string;
}

interface ProviderEntry {
  /** Environment variables that may hold the key, in order; empty when none is needed. */
  keyVariables: string[];
  /** Environment variable that may hold the base URL. */
  baseUrlVariable: string;
  /** Whether the provider enforces a JSON schema on replies (structured output). */
  structuredOutput: boolean;
  create(model: string, settings: { apiKey?: string; baseURL?: string }): LanguageModel;
}

const providers = new Map<string, ProviderEntry>([
  [
    'openai',
    {
      keyVariables: ['OPENAI_API_KEY'],
      baseUrlVariable: 'OPENAI_BASE_URL',
      structuredOutput: true,
      create: (model, settings) => createOpenAI(settings).chat(model),
    },
  ],
  [
    'anthropic',
    {
      keyVariables: ['ANTHROPIC_API_KEY'],
      baseUrlVariable: 'ANTHROPIC_BASE_URL',
      structuredOutput: false,
      create: (model, settings) => createAnthropic(settings)(model),
    },
  ],
  [
    'google',
    {
      keyVariables: ['GOOGLE_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
      baseUrlVariable: 'GOOGLE_BASE_URL',
      structuredOutput: true,
      create: (model, settings) => createGoogleGenerativeAI(settings)(model),
    },
  ],
  [
    'ollama',
    {
      keyVariables: [],
      baseUrlVariable: 'OLLAMA_BASE_URL',
      structuredOutput: true,
      create: (model, settings) =>
        createOllama(settings.baseURL ? { baseURL: settings.baseURL } : {})(model),
    },
  ],
  [
    'openai-compatible',
    {
      keyVariables: [],
      baseUrlVariable: 'OPENAI_COMPATIBLE_BASE_URL',
      structuredOutput: true,
      create: (model, settings) => {
        if (!settings.baseURL)
          throw new UserError(
            'openai-compatible needs --base-url (e.g. http://127.0.0.1:8000/v1 for vLLM, :8080/v1 for llama.cpp, :1234/v1 for LM Studio)',
          );
        return createOpenAICompatible({
          name: 'openai-compatible',
          baseURL: settings.baseURL,
          ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
          supportsStructuredOutputs: true,
        })(model);
      },
    },
  ],
]);

/** Registered provider names. */
export function providerNames(): string[] {
  return [...providers.keys()];
}

/** Whether the provider enforces JSON schemas on replies. */
export function supportsStructuredOutput(provider: string): boolean {
  return providers.get(provider)?.structuredOutput ?? false;
}

/** A ready language model for a parsed spec; throws a UserError for a missing key. */
export function createLanguageModel(
  spec: ModelSpec,
  settings: ProviderSettings = {},
): LanguageModel {
  const entry = providers.get(spec.provider);
  if (!entry)
    throw new UserError(
      `unknown provider "${spec.provider}"; choose one of: ${providerNames().join(', ')}`,
    );
  const apiKey =
    settings.apiKey ??
    entry.keyVariables
      .map((name) => process.env[name])
      .find((value) => value && value.length > 0) ??
    (spec.provider === 'openai-compatible' ? process.env.OPENAI_COMPATIBLE_API_KEY : undefined);
  if (entry.keyVariables.length > 0 && !apiKey) {
    throw new UserError(
      `${entry.keyVariables.join(' or ')} is not set: export your ${spec.provider} API key to use ${spec.provider}:${spec.model}, or use --method offline, which needs no key`,
    );
  }
  const baseURL = settings.baseUrl ?? process.env[entry.baseUrlVariable];
  return entry.create(spec.model, {
    ...(apiKey ? { apiKey } : {}),
    ...(baseURL ? { baseURL } : {}),
  });
}
