/**
 * An in-process model client for testing method logic: it answers each request with the next
 * scripted reply and records what it was asked. No HTTP, no SDK; the provider adapters are tested
 * against wire-protocol servers (scripted-provider.ts) instead.
 */
import type { GenerateRequest, ModelClient } from '../src/llm/client.js';
import type { Price } from '../src/llm/prices.js';

/** A scripted model client and what it was asked. */
export interface ScriptedModel extends ModelClient {
  requests: GenerateRequest[];
  /** The prompt of each request. */
  prompts(): string[];
}

/** A client that replies with `replies` in order (and fails the test when they run out). */
export function scriptedModel(
  replies: readonly string[],
  options: {
    contextTokens?: number;
    tokens?: { input: number; output: number };
    price?: Price;
    /** Answer as the reply cache would: no call made. */
    cached?: boolean;
  } = {},
): ScriptedModel {
  const requests: GenerateRequest[] = [];
  const tokens = options.tokens ?? { input: 100, output: 20 };
  return {
    spec: { provider: 'openai', model: 'scripted-model' },
    contextTokens: options.contextTokens ?? 128_000,
    price: options.price,
    requests,
    prompts: () => requests.map((request) => request.prompt),
    async generate(request) {
      requests.push(request);
      const text = replies[requests.length - 1];
      if (text === undefined)
        throw new Error(`scripted model: no reply scripted for request ${requests.length}`);
      return {
        text,
        inputTokens: tokens.input,
        outputTokens: tokens.output,
        cached: options.cached ?? false,
      };
    },
  };
}
