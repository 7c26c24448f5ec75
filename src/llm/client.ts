/**
 * The small model interface methods talk to: `generate(request)` → text and usage. Underneath:
 * the AI SDK's generateText (structured output where the provider enforces schemas), retries with
 * backoff on 429/5xx honouring Retry-After and a timeout per call (retry.ts), and the on-disk
 * reply cache.
 */
import {
  APICallError,
  generateText,
  NoObjectGeneratedError,
  Output,
  RetryError,
  type LanguageModel,
} from 'ai';
import { join } from 'node:path';
import type { z } from 'zod';
import { faultlineHome } from '../config.js';
import { ProviderError } from '../errors.js';
import { parseModelSpec, type ModelSpec } from './model-spec.js';
import { contextTokensOf, costOf, priceOf, type Price } from './prices.js';
import { providerNames, supportsStructuredOutput } from './provider-catalog.js';
import { createLanguageModel } from './providers.js';
import { cacheKey, ResponseCache } from './response-cache.js';
import { withRetries } from './retry.js';

/** One request: prompts and, optionally, the JSON shape the reply should take. */
export interface GenerateRequest {
  system: string;
  prompt: string;
  schema?: z.ZodType;
  schemaName?: string;
  /** Most tokens of the reply, sent to the provider; none is sent when absent. */
  maxOutputTokens?: number;
  /** This request's temperature: null sends none (the provider's default); absent, the client's. */
  temperature?: number | null;
}

/** One reply. */
export interface GenerateResponse {
  text: string;
  inputTokens: number;
  outputTokens: number;
  /** True when served from the cache: no call was made. */
  cached: boolean;
}

/** A model the methods can call. */
export interface ModelClient {
  spec: ModelSpec;
  /** Context window assumed for shortening logs. */
  contextTokens: number;
  price: Price | undefined;
  generate(request: GenerateRequest): Promise<GenerateResponse>;
}

/** Options of `createModelClient`. */
export interface ModelClientOptions {
  /** `provider:model`. */
  model: string;
  baseUrl?: string;
  apiKey?: string;
  /** Whether a key from the environment may be used (default true; see ProviderSettings). */
  environmentKey?: boolean;
  /** Use the on-disk cache (default true). */
  cache?: boolean;
  cacheFolder?: string;
  /** Milliseconds before a call is abandoned (default 120 s). */
  timeoutMs?: number;
  /** Retries on 429 and 5xx (default 3). */
  maxRetries?: number;
  temperature?: number;
  contextTokens?: number;
  prices?: Record<string, Price>;
  /** A ready model instead of a provider (tests, custom providers). */
  languageModel?: LanguageModel;
}

function providerError(error: unknown, spec: ModelSpec, timeoutMs: number): ProviderError {
  const name = `${spec.provider}:${spec.model}`;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new ProviderError(
      `${name}: no answer within ${Math.round(timeoutMs / 1000)} s (raise --timeout)`,
      { retryable: true, cause: error },
    );
  }
  if (RetryError.isInstance(error)) {
    const last = error.lastError;
    const status = APICallError.isInstance(last) ? last.statusCode : undefined;
    return new ProviderError(
      `${name}: ${error.message}; last error${status ? ` (HTTP ${status})` : ''}: ${last instanceof Error ? last.message : String(last)}`,
      { ...(status ? { status } : {}), retryable: true, cause: error },
    );
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const hint =
      status === 401 || status === 403
        ? ' (check the API key)'
        : status === 404
          ? ' (check the model name and --base-url)'
          : '';
    return new ProviderError(`${name}: HTTP ${status ?? '?'}${hint}: ${error.message}`, {
      ...(status ? { status } : {}),
      retryable: error.isRetryable,
      cause: error,
    });
  }
  return new ProviderError(`${name}: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}

/** Creates a client for `provider:model`. The provider's key is read now, with a clear error if missing. */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const spec = parseModelSpec(options.model, providerNames());
  const model =
    options.languageModel ??
    createLanguageModel(spec, {
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.environmentKey === false ? { environmentKey: false } : {}),
    });
  const cache =
    options.cache === false
      ? undefined
      : new ResponseCache(options.cacheFolder ?? join(faultlineHome(), 'cache', 'llm'));
  const timeoutMs = options.timeoutMs ?? 120_000;
  const temperature = options.temperature ?? 0;
  const structured = supportsStructuredOutput(spec.provider);
  const contextTokens = options.contextTokens ?? contextTokensOf(spec);
  return {
    spec,
    contextTokens,
    price: priceOf(spec, options.prices),
    async generate(request) {
      const sampling = request.temperature === undefined ? temperature : request.temperature;
      const key = cacheKey({
        provider: spec.provider,
        model: spec.model,
        baseUrl: options.baseUrl ?? null,
        system: request.system,
        prompt: request.prompt,
        schema: request.schemaName ?? null,
        temperature: sampling,
        // Absent from the key unless set, so the keys of earlier replies stay valid.
        ...(request.maxOutputTokens === undefined
          ? {}
          : { maxOutputTokens: request.maxOutputTokens }),
      });
      const hit = cache?.get(key);
      if (hit) return { ...hit, cached: true };
      let text: string;
      let inputTokens = 0;
      let outputTokens = 0;
      try {
        const result = await withRetries(
          (abortSignal) =>
            generateText({
              model,
              system: request.system,
              prompt: request.prompt,
              ...(sampling === null ? {} : { temperature: sampling }),
              ...(request.maxOutputTokens === undefined
                ? {}
                : { maxOutputTokens: request.maxOutputTokens }),
              maxRetries: 0,
              // Ollama truncates prompts to its own default context unless told the window to use.
              ...(spec.provider === 'ollama'
                ? { providerOptions: { ollama: { options: { num_ctx: contextTokens } } } }
                : {}),
              abortSignal,
              ...(structured && request.schema
                ? {
                    output: Output.object({
                      schema: request.schema,
                      ...(request.schemaName ? { name: request.schemaName } : {}),
                    }),
                  }
                : {}),
            }),
          { retries: options.maxRetries ?? 3, timeoutMs },
        );
        text = result.text;
        inputTokens = result.usage.inputTokens ?? 0;
        outputTokens = result.usage.outputTokens ?? 0;
      } catch (error) {
        // A reply that ignores the schema is still a reply: the methods parse text formats too.
        if (NoObjectGeneratedError.isInstance(error) && error.text !== undefined) {
          text = error.text;
          inputTokens = error.usage?.inputTokens ?? 0;
          outputTokens = error.usage?.outputTokens ?? 0;
        } else throw providerError(error, spec, timeoutMs);
      }
      const reply = { text, inputTokens, outputTokens };
      cache?.set(key, reply);
      return { ...reply, cached: false };
    },
  };
}

/** Cost of a number of tokens on a client's model, when its price is known. */
export function costFor(
  client: ModelClient,
  inputTokens: number,
  outputTokens: number,
): number | undefined {
  return costOf(client.price, inputTokens, outputTokens);
}
