/**
 * What a step says in substance, as a diff compares it: its figures (ids, timestamps and timings
 * left out), its tool calls with their arguments, its code, and its decision (accepts, rejects,
 * stops). Two steps that differ only in wording have the same substance.
 */
import { canonicalAgentName } from '../../trace/agents.js';
import type { Step } from '../../trace/model.js';
import { squash, stepText } from '../../trace/step-text.js';

/** A step read for comparing. */
export interface StepSubstance {
  index: number;
  /** Agent key: canonical name, lower-cased, without separators. */
  agent: string;
  role: Step['role'];
  /** The step's text (content and the calls it does not show), squashed. */
  text: string;
  /** Its lines as written, for quoting. */
  lines: string[];
  /** Tool calls as `name(arguments)`, arguments normalised (JSON keys sorted). */
  calls: string[];
  /** True when the source recorded an error at this step. */
  error: boolean;
  /** Words (lower-case), for similarity. */
  words: string[];
  /** The rest, read when the step is compared with another (most steps of a diff never are). */
  facts(): StepFacts;
}

/** What a step states, read on demand. */
export interface StepFacts {
  /** Figures, normalised (`1,000.50` → `1000.5`), in order of first appearance, once each. */
  numbers: string[];
  /** Code blocks' lines, normalised (whitespace, comment lines and blank lines dropped). */
  code: string[];
  /** +1 accepts, -1 rejects, 0 neither or both. */
  decision: number;
  /** True when the step ends the run (`TERMINATE`, or a line giving the final answer). */
  terminates: boolean;
}

/** Identifiers and times that differ between any two runs and are never substance. */
const NOISE = [
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b(?:call|toolu|chatcmpl|run|msg|resp|span|trace)[_-][A-Za-z0-9_-]+/g,
  /\b0x[0-9a-f]+\b/gi,
  /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi,
  /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g,
  /\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g,
  /\b(?:took|elapsed|in|time:?|duration:?)\s*\d+(?:\.\d+)?\s*(?:ms|s|sec|secs|seconds|milliseconds)\b/gi,
];

/** A number as written: thousands separators, decimals, exponent, percent. */
const NUMBER = /(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?%?/g;
/** A list item's or a heading's own number (`1. `, `2) `) is layout, not a figure. */
const LIST_NUMBER = /^[ \t]*\d+[.)]\s/gm;

/** Text with ids, timestamps and timings blanked. */
export function withoutNoise(text: string): string {
  let out = text;
  for (const pattern of NOISE) out = out.replace(pattern, ' ');
  return out;
}

/** A figure normalised: `1,000.50` → `1000.5`, `+3` → `3`, `50%` kept with its sign. */
export function normaliseNumber(raw: string): string {
  const percent = raw.endsWith('%');
  const digits = raw.replace(/[,%+]/g, '');
  const value = Number(digits);
  const shown = Number.isFinite(value) ? String(value) : digits;
  return percent ? `${shown}%` : shown;
}

/** The figures of a text, normalised, once each in order of first appearance. */
export function numbersIn(text: string): string[] {
  const cleaned = withoutNoise(text).replace(LIST_NUMBER, ' ');
  return [...new Set([...cleaned.matchAll(NUMBER)].map((match) => normaliseNumber(match[0])))];
}

/** JSON with sorted keys, so that `{"b":1,"a":2}` and `{"a":2, "b":1}` read the same. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Tool call arguments normalised: JSON with sorted keys, or the text squashed. */
export function normaliseArguments(text: string): string {
  try {
    return stableJson(JSON.parse(text));
  } catch {
    return text.replace(/\s+/g, ' ').trim();
  }
}

const FENCE = /```[^\n`]*\n([\s\S]*?)```/g;
const COMMENT_LINE = /^(?:#|\/\/|--)/;

/** The lines of a text's fenced code blocks, normalised. */
export function codeIn(text: string): string[] {
  const lines: string[] = [];
  for (const match of text.matchAll(FENCE))
    for (const line of match[1]!.split('\n')) {
      const squashed = line.replace(/\s+/g, ' ').trim();
      if (squashed && !COMMENT_LINE.test(squashed)) lines.push(squashed);
    }
  return lines;
}

const ACCEPTS = new Set([
  'approve',
  'approved',
  'accept',
  'accepted',
  'correct',
  'agree',
  'agreed',
  'valid',
  'verified',
  'confirmed',
  'lgtm',
  'succeeded',
  'successful',
  'successfully',
  'passed',
  'passes',
  'true',
]);
const REJECTS = new Set([
  'reject',
  'rejected',
  'incorrect',
  'wrong',
  'disagree',
  'invalid',
  'failed',
  'fails',
  'failure',
  'false',
]);
const NEGATORS = new Set(['not', "n't", 'never', 'no', 'cannot', 'without', 'nor']);

/**
 * The decision a text states: +1 when its accepting words outnumber its rejecting ones, -1 for
 * the reverse (a word after `not`, `never`... counts the other way), 0 otherwise; a line that is
 * a bare `yes` or `no` answer counts too. Code is left out.
 */
export function decisionOf(text: string): number {
  const prose = text.replace(FENCE, ' ');
  const words = prose.toLowerCase().match(/[a-z]+(?:'t)?/g) ?? [];
  let score = 0;
  words.forEach((word, index) => {
    const polarity = ACCEPTS.has(word) ? 1 : REJECTS.has(word) ? -1 : 0;
    if (polarity === 0) return;
    const negated = words
      .slice(Math.max(0, index - 2), index)
      .some((before) => NEGATORS.has(before));
    score += negated ? -polarity : polarity;
  });
  for (const match of prose.matchAll(/^[ \t]*(yes|no)\b/gim))
    score += match[1]!.toLowerCase() === 'yes' ? 1 : -1;
  return Math.sign(score);
}

/**
 * How a step ends a run: AutoGen's `TERMINATE`, or a line that gives the final answer (`FINAL
 * ANSWER: 42`, ReAct's `Final Answer:`), as a team's last step does.
 */
const ENDS_RUN = /\bTERMINATE\b|^[^\w\n\r\u2028\u2029]*final answer\s*:/im;

/** The agent key of a name: canonical, lower-case, without separators. */
export const agentKey = (name: string) =>
  canonicalAgentName(name)
    .toLowerCase()
    .replace(/[\s_-]/g, '');

/** A step read for comparing. */
export function substanceOf(step: Step): StepSubstance {
  const text = stepText(step);
  const calls = (step.toolCalls ?? []).map(
    (call) => `${call.name}(${normaliseArguments(call.arguments)})`,
  );
  const cleaned = withoutNoise(text);
  let facts: StepFacts | undefined;
  return {
    index: step.index,
    agent: agentKey(step.agent),
    role: step.role,
    text: squash(cleaned),
    lines: text.split('\n').filter((line) => line.trim().length > 0),
    calls,
    error: Boolean(step.error) || (step.toolResults ?? []).some((result) => result.isError),
    words: cleaned.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [],
    facts: () =>
      (facts ??= {
        numbers: numbersIn(text),
        code: codeIn(step.content),
        decision: decisionOf(step.content),
        terminates: ENDS_RUN.test(step.content),
      }),
  };
}
