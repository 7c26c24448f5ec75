/**
 * How a trace is shown to a model: numbered steps with their agent (each step's content with the
 * tool calls it does not show, `trace/step-text.ts`), shortened to fit the context window when
 * needed. Shortening keeps each step's head and tail (where plans, answers and errors
 * usually sit) and says what it cut, so the model and the user both know.
 */
import type { Trace } from '../../trace/model.js';
import { stepText } from '../../trace/step-text.js';
import { tokenCount } from '../../llm/tokens.js';

/** Tokens kept free for the system prompt, the question and its reply format, and the reply. */
export const RESERVED_TOKENS = 2_000;
/** Smallest share of a step kept on the first attempt at shortening. */
const MINIMUM_CHARACTERS = 200;
/** Characters of each step kept when whole steps must go. */
const KEPT_WHEN_DROPPING = 100;
/** Attempts at scaling steps down before whole steps go. */
const ATTEMPTS = 6;

/** One step as the model reads it. */
function renderStep(trace: Trace, index: number, content: string): string {
  const step = trace.steps[index]!;
  const role = step.role === 'agent' ? '' : ` (${step.role})`;
  return `Step ${index} - ${step.speaker}${role}:\n${content}`;
}

/** Head and tail of a text, with a marker for what was cut. */
function headAndTail(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.ceil((limit * 2) / 3);
  const tail = limit - head;
  return `${text.slice(0, head)}\n[… ${text.length - limit} characters omitted …]\n${text.slice(text.length - tail)}`;
}

/** The steps with each content cut to `limitOf` characters; how many were cut. */
function renderCut(
  trace: Trace,
  indices: readonly number[],
  limitOf: (content: string) => number,
): { text: string; cut: number } {
  let cut = 0;
  const text = indices
    .map((index) => {
      const content = stepText(trace.steps[index]!);
      const limit = limitOf(content);
      if (content.length > limit) cut += 1;
      return renderStep(trace, index, headAndTail(content, limit));
    })
    .join('\n\n');
  return { text, cut };
}

/** The first `head` and last `tail` steps, briefly, with a marker for the steps between. */
function renderEnds(trace: Trace, indices: readonly number[], head: number, tail: number): string {
  const brief = (index: number) =>
    renderStep(trace, index, headAndTail(stepText(trace.steps[index]!), KEPT_WHEN_DROPPING));
  const first = indices.slice(0, head);
  const last = indices.slice(indices.length - tail);
  const gap = indices.slice(head, indices.length - tail);
  const marker =
    gap.length > 0 ? [`[… steps ${gap[0]}–${gap.at(-1)} omitted to fit the context …]`] : [];
  return [...first.map(brief), ...marker, ...last.map(brief)].join('\n\n');
}

/**
 * The rendered log of the given steps within `budget` tokens, and a warning when it had to be
 * shortened. Every step is first scaled down by the same factor (its head and tail kept), the
 * result counted again and scaled further until it fits; if even the steps' headings are too many,
 * the steps at both ends are kept (the last ones, which a question is usually about, always) and
 * those between are omitted. The result never exceeds the budget.
 */
export function renderLog(
  trace: Trace,
  indices: readonly number[],
  budget: number,
  provider: string,
): { text: string; tokens: number; warning?: string } {
  const count = (text: string) => tokenCount(text, provider);
  const full = renderCut(trace, indices, (content) => content.length).text;
  const measured = count(full);
  if (measured.tokens <= budget) return { text: full, tokens: measured.tokens };
  const about = measured.exact ? '' : 'about ';
  const warn = (what: string) =>
    `the log (${about}${measured.tokens} tokens) is longer than the ${budget} tokens the model's context leaves for it: ${what}`;

  let ratio = budget / measured.tokens;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const minimum = attempt === 0 ? MINIMUM_CHARACTERS : 0;
    const { text, cut } = renderCut(trace, indices, (content) =>
      Math.max(minimum, Math.floor(content.length * ratio * 0.95)),
    );
    const { tokens } = count(text);
    if (tokens <= budget)
      return {
        text,
        tokens,
        warning: warn(`${cut} of ${indices.length} steps were cut to their head and tail`),
      };
    ratio *= (budget / tokens) * 0.9;
  }

  // Too many steps for even their headings: keep as many as fit from both ends.
  let low = 0;
  let high = indices.length;
  let best = { text: '', tokens: 0, kept: 0 };
  while (low <= high) {
    const kept = Math.floor((low + high) / 2);
    const tail = Math.ceil((kept * 2) / 3);
    const text = renderEnds(trace, indices, kept - tail, tail);
    const { tokens } = count(text);
    if (tokens <= budget) {
      best = { text, tokens, kept };
      low = kept + 1;
    } else high = kept - 1;
  }
  return {
    text: best.text,
    tokens: best.tokens,
    warning: warn(
      `only ${best.kept} of ${indices.length} steps fit (the first and the last, each shortened); the others were omitted`,
    ),
  };
}
