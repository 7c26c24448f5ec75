/**
 * Where the values of a failing tool call came from. A call that the tool rejects is wrong either
 * because its caller mistyped or made up a value, or because the caller faithfully passed on a
 * value that someone else gave: a simulated customer's wrong order id, a planner's wrong figure.
 * When every value the call passes was written before it, and every figure among them (a token
 * with a digit in it: an id, a zip code, an amount) was first written by one other speaker, in a
 * step that may be blamed and is not a tool's output, that step is where the error entered the
 * run. The signals "a tool call with wrong arguments" and "who introduced it", read from
 * the run alone.
 */
import { blamableSteps } from '../../../trace/agents.js';
import type { Trace } from '../../../trace/model.js';
import { stepText } from '../../../trace/step-text.js';
import { quoting, type StepExplanation } from '../explain/evidence.js';
import { shorten } from '../explain/quotes.js';
import { isTokenCode } from '../features/tokens.js';

/** Tokens with a digit in them, lower-cased: `#W7781023` gives `w7781023`. */
const WORD = /[a-z0-9_]+/g;
/** Shorter tokens (`1`, `v2`) are too common to trace. */
const MIN_FIGURE = 3;

/** The figures of a lower-cased text. */
function figuresIn(lower: string): Set<string> {
  const out = new Set<string>();
  // Whole words, then those with a digit: a pattern that looks for the digit inside the word would
  // rescan a long word without one from each of its letters.
  for (const [word] of lower.matchAll(WORD))
    if (word.length >= MIN_FIGURE && /\d/.test(word)) out.add(word);
  return out;
}

/** True when `text` holds `value` as a whole: not inside a longer word (`kovac` in `kovacs`). */
function writes(text: string, value: string): boolean {
  const whole = (at: number) =>
    !isTokenCode(text.charCodeAt(at - 1)) && !isTokenCode(text.charCodeAt(at + value.length));
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1))
    if (whole(at)) return true;
  return false;
}

/** The values of a call's JSON arguments, lower-cased (none when they are not JSON). */
function valuesOf(argumentsText: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    return [];
  }
  const out: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string' || typeof value === 'number') {
      const text = String(value).trim().toLowerCase();
      if (text) out.push(text);
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(parsed);
  return out;
}

/** The step a failing call's figures came from, those figures, and its line that writes one. */
export interface CallOrigin {
  step: number;
  figures: string[];
  quote: string;
}

/**
 * Where the figures of the tool calls at `step` were first written, when that is one other
 * speaker's step (see above); undefined when the caller, the task or a tool output wrote any of
 * them first, when the call passes a value written nowhere before, and for a step without calls or
 * without figures in them. `candidate` says which steps may be blamed; a person's turn that
 * blamableSteps accepts counts too (a participant's, such as a simulated customer's).
 */
export function originOfCall(
  trace: Trace,
  step: number,
  candidate: (step: number) => boolean,
): CallOrigin | undefined {
  const calls = trace.steps[step]?.toolCalls ?? [];
  const figures = figuresIn(calls.map((call) => call.arguments.toLowerCase()).join('\n'));
  if (figures.size === 0) return undefined;
  const texts = trace.steps.slice(0, step).map((source) => stepText(source).toLowerCase());
  const task = trace.question?.toLowerCase() ?? '';
  // A value the caller made up or mistyped (a name spelt differently) makes the call its own error.
  const written = (value: string) =>
    writes(task, value) || texts.some((text) => writes(text, value));
  if (!calls.every((call) => valuesOf(call.arguments).every(written))) return undefined;
  const taskFigures = figuresIn(task);
  const earlier = texts.map(figuresIn);
  // A person's turn that blamableSteps accepts is a participant's (a simulated customer's), also
  // where the scorer's narrower mask leaves it out for its few words of its own.
  const participantTurns = new Set(blamableSteps(trace));
  const caller = trace.steps[step]!.agent;
  let origin: number | undefined;
  for (const figure of figures) {
    if (taskFigures.has(figure)) return undefined;
    const first = earlier.findIndex((found) => found.has(figure));
    if (first === -1) return undefined;
    const source = trace.steps[first]!;
    const participant = source.role === 'human' && participantTurns.has(first);
    if (source.agent === caller || source.role === 'tool' || !(participant || candidate(first)))
      return undefined;
    if (origin !== undefined && trace.steps[origin]!.agent !== source.agent) return undefined;
    origin = origin === undefined ? first : Math.min(origin, first);
  }
  if (origin === undefined) return undefined;
  const lines = stepText(trace.steps[origin]!).split(/\r?\n/);
  const line = lines.find((text) =>
    [...figures].some((figure) => text.toLowerCase().includes(figure)),
  );
  return { step: origin, figures: [...figures], quote: shorten((line ?? lines[0] ?? '').trim()) };
}

/**
 * Why the origin of a failing call is named: the figures it first wrote, the call that passed them
 * on, and the output that rejects the call (taken from the call's own explanation).
 */
export function explainCallOrigin(
  trace: Trace,
  origin: CallOrigin,
  call: number,
  callExplanation: StepExplanation,
): StepExplanation {
  const rejection = callExplanation.evidence.find((entry) => entry.step > call);
  const evidence = [{ step: origin.step, quote: origin.quote }, ...(rejection ? [rejection] : [])];
  const source = trace.steps[origin.step]!.agent;
  const caller = trace.steps[call]!.agent;
  return {
    reason: `${source} at step ${origin.step}: it first writes ${origin.figures.join(', ')}, which ${caller}'s tool call at step ${call} passes on, and the output that follows rejects that call.${quoting(trace, origin.step, evidence)}`,
    evidence,
  };
}
