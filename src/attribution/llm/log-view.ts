/**
 * How a trace is shown to a model: numbered steps with their agent, shortened to fit the context
 * window when needed. Shortening keeps each step's head and tail (where plans, answers and errors
 * usually sit) and says what it cut, so the model and the user both know.
 */
import type { Trace } from '../../trace/model.js';
import { tokenCount } from '../../llm/tokens.js';

/** Tokens kept free for the instructions and the reply. */
const RESERVED_TOKENS = 2_000;
/** Smallest share of a step kept when shortening. */
const MINIMUM_CHARACTERS = 200;

/** One step as the model reads it. */
function renderStep(trace: Trace, index: number, content: string): string {
  const step = trace.steps[index]!;
  const role = step.role === 'agent' ? '' : ` (${step.role})`;
  return `Step ${index} - ${step.speaker}${role}:\n${content}`;
}

/** Head and tail of a text, with a marker for what was cut. */
export function headAndTail(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.ceil((limit * 2) / 3);
  const tail = limit - head;
  return `${text.slice(0, head)}\n[… ${text.length - limit} characters omitted …]\n${text.slice(text.length - tail)}`;
}

/** The rendered log of the given steps, and a warning when it had to be shortened. */
export function renderLog(
  trace: Trace,
  indices: readonly number[],
  contextTokens: number,
  provider: string,
): { text: string; warning?: string } {
  const full = indices
    .map((index) => renderStep(trace, index, trace.steps[index]!.content))
    .join('\n\n');
  const budget = Math.max(1_000, contextTokens - RESERVED_TOKENS);
  const { tokens, exact } = tokenCount(full, provider);
  if (tokens <= budget) return { text: full };
  // Scale every step down by the same factor, never below a readable minimum.
  const ratio = budget / tokens;
  let cut = 0;
  const text = indices
    .map((index) => {
      const content = trace.steps[index]!.content;
      const limit = Math.max(MINIMUM_CHARACTERS, Math.floor(content.length * ratio * 0.95));
      if (content.length > limit) cut += 1;
      return renderStep(trace, index, headAndTail(content, limit));
    })
    .join('\n\n');
  return {
    text,
    warning: `the log (${exact ? '' : 'about '}${tokens} tokens) is longer than the model's ${contextTokens}-token context: ${cut} of ${indices.length} steps were cut to their head and tail`,
  };
}
