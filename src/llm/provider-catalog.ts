/**
 * What faultline knows about each provider without loading its SDK: where its key and endpoint
 * come from and whether it enforces JSON schemas. Checking a key needs no network and no SDK, so a
 * missing key fails at once and commands that never call a model start fast.
 */
import { environmentValue } from '../config.js';
import { UserError } from '../errors.js';
import type { ModelSpec } from './model-spec.js';

/** Connection settings; explicit values win over environment variables. */
export interface ProviderSettings {
  baseUrl?: string;
  apiKey?: string;
  /**
   * Whether a key from the environment may be used (default true). The server turns it off for an
   * endpoint a request chose, so its own keys reach only the endpoints it was launched with.
   */
  environmentKey?: boolean;
}

interface ProviderInfo {
  /** Environment variables that may hold the key, in order; empty when none is required. */
  keyVariables: string[];
  /** Environment variable that may hold the base URL. */
  baseUrlVariable: string;
  /** Whether the provider enforces a JSON schema on replies (structured output). */
  structuredOutput: boolean;
  /** Whether a base URL is required. */
  needsBaseUrl?: boolean;
}

const PROVIDERS = new Map<string, ProviderInfo>([
  [
    'openai',
    {
      keyVariables: ['OPENAI_API_KEY'],
      baseUrlVariable: 'OPENAI_BASE_URL',
      structuredOutput: true,
    },
  ],
  [
    'anthropic',
    {
      keyVariables: ['ANTHROPIC_API_KEY'],
      baseUrlVariable: 'ANTHROPIC_BASE_URL',
      structuredOutput: false,
    },
  ],
  [
    'google',
    {
      keyVariables: ['GOOGLE_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
      baseUrlVariable: 'GOOGLE_BASE_URL',
      structuredOutput: true,
    },
  ],
  ['ollama', { keyVariables: [], baseUrlVariable: 'OLLAMA_BASE_URL', structuredOutput: true }],
  [
    'openai-compatible',
    {
      keyVariables: [],
      baseUrlVariable: 'OPENAI_COMPATIBLE_BASE_URL',
      structuredOutput: true,
      needsBaseUrl: true,
    },
  ],
]);

/** Registered provider names. */
export function providerNames(): string[] {
  return [...PROVIDERS.keys()];
}

/** Whether the provider's key is a vendor's own (OpenAI, Anthropic, Google), read from its variables. */
export function hasVendorKey(provider: string): boolean {
  return (PROVIDERS.get(provider)?.keyVariables.length ?? 0) > 0;
}

/** Whether the provider enforces JSON schemas on replies. */
export function supportsStructuredOutput(provider: string): boolean {
  return PROVIDERS.get(provider)?.structuredOutput ?? false;
}

/** The key and endpoint for a model, or a UserError saying what is missing and what to do. */
export function resolveConnection(
  spec: ModelSpec,
  settings: ProviderSettings = {},
): { apiKey?: string; baseURL?: string } {
  const info = PROVIDERS.get(spec.provider);
  if (!info)
    throw new UserError(
      `unknown provider "${spec.provider}"; choose one of: ${providerNames().join(', ')}`,
    );
  const fromEnvironment = () =>
    environmentValue(...info.keyVariables) ??
    (spec.provider === 'openai-compatible'
      ? environmentValue('OPENAI_COMPATIBLE_API_KEY')
      : undefined);
  const apiKey =
    settings.apiKey ?? (settings.environmentKey === false ? undefined : fromEnvironment());
  if (info.keyVariables.length > 0 && !apiKey && settings.environmentKey === false) {
    throw new UserError(
      `${spec.provider}:${spec.model} at ${settings.baseUrl ?? 'this endpoint'} needs an API key of its own: faultline sends the keys in its environment only to the endpoints it was started with`,
    );
  }
  if (info.keyVariables.length > 0 && !apiKey) {
    throw new UserError(
      `${info.keyVariables.join(' or ')} is not set: export your ${spec.provider} API key to use ${spec.provider}:${spec.model}, or use --method offline, which needs no key`,
    );
  }
  const baseURL = settings.baseUrl ?? environmentValue(info.baseUrlVariable);
  if (info.needsBaseUrl && !baseURL) {
    throw new UserError(
      `${spec.provider} needs --base-url (e.g. http://127.0.0.1:8000/v1 for vLLM, :8080/v1 for llama.cpp, :1234/v1 for LM Studio)`,
    );
  }
  return { ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}) };
}
