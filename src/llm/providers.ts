/**
 * Provider factories over the Vercel AI SDK, registered by name. Loaded only when a model is
 * actually created; keys and endpoints come from provider-catalog.ts.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { createOllama } from 'ollama-ai-provider-v2';
import type { ModelSpec } from './model-spec.js';
import { resolveConnection, type ProviderSettings } from './provider-catalog.js';
import { trimEndOf } from '../trace/text-limits.js';

type Connection = { apiKey?: string; baseURL?: string };

/**
 * Ollama's native API lives under `/api`; a server address given without it (as Ollama's own
 * documentation writes it, `http://localhost:11434`) gets it added.
 */
function ollamaApiUrl(baseUrl: string): string {
  const trimmed = trimEndOf(baseUrl, '/');
  return /\/api$/.test(trimmed) ? trimmed : `${trimmed}/api`;
}

const factories = new Map<string, (model: string, connection: Connection) => LanguageModel>([
  ['openai', (model, connection) => createOpenAI(connection).chat(model)],
  ['anthropic', (model, connection) => createAnthropic(connection)(model)],
  ['google', (model, connection) => createGoogleGenerativeAI(connection)(model)],
  [
    'ollama',
    (model, connection) =>
      createOllama(connection.baseURL ? { baseURL: ollamaApiUrl(connection.baseURL) } : {})(model),
  ],
  [
    'openai-compatible',
    (model, connection) =>
      createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: connection.baseURL!,
        ...(connection.apiKey ? { apiKey: connection.apiKey } : {}),
        supportsStructuredOutputs: true,
      })(model),
  ],
]);

/** A ready language model for a parsed spec; throws a UserError for a missing key or endpoint. */
export function createLanguageModel(
  spec: ModelSpec,
  settings: ProviderSettings = {},
): LanguageModel {
  const connection = resolveConnection(spec, settings);
  return factories.get(spec.provider)!(spec.model, connection);
}
