/**
 * Token log probabilities, read from wherever a source logged them and summarised per step: the
 * mean, the minimum and the least likely tokens (`Step.logprobs`). Shapes read:
 * - OpenAI Chat Completions, a choice's `logprobs`: `{content: [{token, logprob, ...}]}`;
 * - the Responses API, an output text part's `logprobs`: `[{token, logprob, ...}]`;
 * - legacy Completions: `{tokens: [...], token_logprobs: [...]}`;
 * - faultline's own summary, `{mean, min, tokens, lowest}` (canonical JSON read back);
 * each also as JSON text (an OpenTelemetry attribute holds text). Anything else is no log
 * probabilities, never an error: they are facts beside the step, and a step reads without them.
 */
import { z } from 'zod';
import { FIRST_ISSUE, parseJsonOr } from './format.js';
import type { StepLogprobs } from './model.js';

/** Least likely tokens kept per step. */
const LOWEST_KEPT = 5;

/** Digits kept of a summary's log probabilities: outputs stay short and stable. */
const round = (value: number) => Math.round(value * 10_000) / 10_000;

const tokenSchema = z.object({ token: z.string(), logprob: z.number() });
const tokenListSchema = z.array(tokenSchema);
const chatSchema = z.object({ content: tokenListSchema.nullish() });
const legacySchema = z.object({
  tokens: z.array(z.string()),
  token_logprobs: z.array(z.number().nullable()),
});
const summarySchema = z.object({
  mean: z.number(),
  min: z.number(),
  tokens: z.number().int().nonnegative(),
  lowest: z.array(z.object({ token: z.string(), logprob: z.number(), position: z.number().int() })),
});

/** One token and its log probability. */
export interface TokenLogprob {
  token: string;
  logprob: number;
}

/** The summary of a step's tokens; undefined when there are none. */
export function summariseLogprobs(tokens: readonly TokenLogprob[]): StepLogprobs | undefined {
  const finite = tokens
    .map((token, position) => ({ ...token, position }))
    .filter((token) => Number.isFinite(token.logprob));
  if (finite.length === 0) return undefined;
  let sum = 0;
  for (const token of finite) sum += token.logprob;
  const lowest = [...finite]
    .sort((left, right) => left.logprob - right.logprob || left.position - right.position)
    .slice(0, LOWEST_KEPT);
  return {
    mean: round(sum / finite.length),
    min: round(lowest[0]!.logprob),
    tokens: finite.length,
    lowest: lowest.map(({ token, logprob, position }) => ({
      token,
      logprob: round(logprob),
      position,
    })),
  };
}

/** The tokens of any shape this module reads, or undefined. */
function tokensOf(value: unknown): TokenLogprob[] | undefined {
  const list = tokenListSchema.safeParse(value, FIRST_ISSUE);
  if (list.success) return list.data;
  const chat = chatSchema.safeParse(value, FIRST_ISSUE);
  if (chat.success && chat.data.content) return chat.data.content;
  const legacy = legacySchema.safeParse(value, FIRST_ISSUE);
  if (legacy.success)
    // A missing value (the first token's, as some servers write null) keeps its position.
    return legacy.data.tokens.map((token, index) => ({
      token,
      logprob: legacy.data.token_logprobs[index] ?? Number.NaN,
    }));
  return undefined;
}

/**
 * The summary of the log probabilities a source logged for a step (any shape above), or
 * undefined when it logged none this module reads.
 */
export function readLogprobs(value: unknown): StepLogprobs | undefined {
  if (value === null || value === undefined) return undefined;
  const parsed = typeof value === 'string' ? parseJsonOr(value) : value;
  const summary = summarySchema.safeParse(parsed, FIRST_ISSUE);
  if (summary.success) return summary.data;
  const tokens = tokensOf(parsed);
  return tokens ? summariseLogprobs(tokens) : undefined;
}

/** The summary of several parts' log probabilities read as one step (a message's text parts). */
export function readLogprobsOfParts(values: readonly unknown[]): StepLogprobs | undefined {
  const tokens = values.flatMap((value) => {
    const parsed = typeof value === 'string' ? parseJsonOr(value) : value;
    return tokensOf(parsed) ?? [];
  });
  return summariseLogprobs(tokens);
}
