/**
 * Prices and context sizes of common models, used to estimate cost and to decide when a log must
 * be shortened. Prices are USD per million tokens and can be overridden with a JSON file
 * (`--prices FILE` or FAULTLINE_PRICES): `{"openai:gpt-4o": {"input": 2.5, "output": 10}}`.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../errors.js';
import type { ModelSpec } from './model-spec.js';

/** Price of a model per million tokens. */
export interface Price {
  input: number;
  output: number;
}

/**
 * Published list prices (USD / 1M tokens) of `provider:model`, matched exactly or with a date or
 * `-latest` suffix (`gpt-4o-2024-08-06`); a key ending in `:` prices a whole provider (local
 * servers). Another model of the same family is not priced by its neighbour: `gpt-4.1-nano` is not
 * `gpt-4.1`, and a typo is unknown rather than guessed.
 */
const DEFAULT_PRICES: Record<string, Price> = {
  'openai:gpt-4o-mini': { input: 0.15, output: 0.6 },
  'openai:gpt-4o': { input: 2.5, output: 10 },
  'openai:gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'openai:gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'openai:gpt-4.1': { input: 2, output: 8 },
  'openai:o3': { input: 2, output: 8 },
  'openai:o4-mini': { input: 1.1, output: 4.4 },
  'anthropic:claude-3-5-haiku': { input: 0.8, output: 4 },
  'anthropic:claude-haiku-4-5': { input: 1, output: 5 },
  'anthropic:claude-sonnet-4': { input: 3, output: 15 },
  'anthropic:claude-sonnet-4-5': { input: 3, output: 15 },
  'anthropic:claude-opus-4': { input: 15, output: 75 },
  'anthropic:claude-opus-4-1': { input: 15, output: 75 },
  'google:gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'google:gemini-2.5-pro': { input: 1.25, output: 10 },
  'ollama:': { input: 0, output: 0 },
  'openai-compatible:': { input: 0, output: 0 },
};

/** Context windows in tokens, by prefix; 128k when unknown (8k for local servers). */
const CONTEXT_TOKENS: Record<string, number> = {
  'openai:gpt-4o': 128_000,
  'openai:gpt-4.1': 1_000_000,
  'anthropic:': 200_000,
  'google:gemini': 1_000_000,
  'ollama:': 8_192,
  'openai-compatible:': 8_192,
};

function longestPrefix<Value>(table: Record<string, Value>, key: string): Value | undefined {
  const match = Object.keys(table)
    .filter((prefix) => key.startsWith(prefix))
    .sort((left, right) => right.length - left.length)[0];
  return match === undefined ? undefined : table[match];
}

const priceFileSchema = z.record(
  z.string(),
  z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }),
);

/** Reads a price override file. */
export function readPriceFile(file: string): Record<string, Price> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UserError(
      `${file}: cannot read the price file (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  const parsed = priceFileSchema.safeParse(value);
  if (!parsed.success)
    throw new UserError(
      `${file}: prices must look like {"openai:gpt-4o": {"input": 2.5, "output": 10}} (USD per million tokens)`,
    );
  return parsed.data;
}

/** A version suffix that names the same model: a date (`-2024-08-06`, `-20250514`) or `-latest`. */
const VERSION_SUFFIX = /^(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)$/;

/** The price listed for `key` itself, a dated version of it, or its whole provider. */
function listedPrice(table: Record<string, Price>, key: string): Price | undefined {
  if (table[key]) return table[key];
  const versioned = Object.keys(table).find(
    (listed) => key.startsWith(listed) && VERSION_SUFFIX.test(key.slice(listed.length)),
  );
  if (versioned) return table[versioned];
  return table[`${key.slice(0, key.indexOf(':') + 1)}`];
}

/** The price of a model: overrides first, then the built-in table; undefined when unknown. */
export function priceOf(spec: ModelSpec, overrides: Record<string, Price> = {}): Price | undefined {
  const key = `${spec.provider}:${spec.model}`;
  return listedPrice(overrides, key) ?? listedPrice(DEFAULT_PRICES, key);
}

/** Estimated cost in USD, or undefined when the price is unknown. */
export function costOf(
  price: Price | undefined,
  inputTokens: number,
  outputTokens: number,
): number | undefined {
  if (!price) return undefined;
  return Number(((inputTokens * price.input + outputTokens * price.output) / 1_000_000).toFixed(6));
}

/** The context window assumed for a model. */
export function contextTokensOf(spec: ModelSpec): number {
  return longestPrefix(CONTEXT_TOKENS, `${spec.provider}:${spec.model}`) ?? 128_000;
}
