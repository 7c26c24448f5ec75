/**
 * Token counts for fitting logs into a context window. OpenAI models are counted exactly with
 * gpt-tokenizer; no offline tokenizer exists for Claude or Gemini, so those are estimated from
 * characters (and said to be estimates).
 */
import { countTokens } from 'gpt-tokenizer';

/** Characters per token assumed when no tokenizer is available: deliberately on the safe side. */
const CHARACTERS_PER_TOKEN = 3.2;

/** Token count of a text for a provider, and whether it is exact. */
export function tokenCount(text: string, provider: string): { tokens: number; exact: boolean } {
  if (provider === 'openai' || provider === 'openai-compatible')
    return { tokens: countTokens(text), exact: provider === 'openai' };
  return { tokens: Math.ceil(text.length / CHARACTERS_PER_TOKEN), exact: false };
}
