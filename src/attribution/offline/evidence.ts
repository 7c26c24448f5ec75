/**
 * Turns a scored step into a reason a person can check: the strongest signals that raised its
 * score, in words, with the line of the step (or the following tool output) that shows them.
 */
import type { Step, Trace } from '../../trace/model.js';
import { squash, squashTask, stepText } from '../../trace/step-text.js';
import type { Evidence } from '../method.js';
import { FEATURE_NAMES, type FeatureName } from './feature-names.js';
import type { LinearScorer } from './scoring.js';
import { hasPhrase, type PhraseSignal } from './phrases.js';
import { ERROR_OUTPUT } from './text-signals.js';
import { wordsIn, type WordSet } from './tokens.js';

/** Which lines of a step show a signal. */
type LineTest = (line: string) => boolean;
const matching =
  (pattern: RegExp): LineTest =>
  (line) =>
    pattern.test(line);
const saying =
  (signal: PhraseSignal): LineTest =>
  (line) =>
    hasPhrase(signal, line);

/** A code fence that opens a line: a code block, not a mention of one (a roster's "```python"). */
const CODE_FENCE = /(?:^|\n)[ \t]*```/;

/** A list marker ("1. ", "(2)", "- 3) "), which numbers a line rather than states a figure. */
const LEADING_MARKER = /^[-*\s]*\(?\d+[.)]\s+/;
const INLINE_MARKER = /\(\d+\)/g;
/** A line that states a figure: a digit besides its list markers. */
const statesFigure: LineTest = (line) =>
  /\d/.test(line.replace(LEADING_MARKER, '').replace(INLINE_MARKER, ''));

/** A step's content and its feature values, by name. */
interface StepView {
  content: string;
  value: (feature: FeatureName) => number;
}

/**
 * How each signal reads in a reason, which line pattern to quote for it (in the step, or with
 * `quoteNext` the one after it; with `recorded`, where no line matches, the error the source
 * recorded for that step), and (`holds`) what the step must show for the words to be true where
 * the feature is read more loosely.
 */
const PHRASES: Partial<
  Record<
    FeatureName,
    {
      text: string;
      quote?: LineTest;
      quoteNext?: boolean;
      recorded?: boolean;
      holds?: (step: StepView) => boolean;
    }
  >
> = {
  next_error: {
    text: 'the tool output right after it fails',
    quote: matching(ERROR_OUTPUT),
    quoteNext: true,
    recorded: true,
  },
  next_empty: { text: 'the tool output right after it is empty' },
  next_correction: {
    text: 'the next agent turn corrects it',
    quote: saying('correction'),
    quoteNext: true,
  },
  hedging: {
    text: 'it assumes or makes up data instead of obtaining it',
    quote: saying('hedging'),
  },
  inability: { text: 'it gives up on part of the task', quote: saying('inability') },
  conclusion: { text: 'it asserts a conclusion', quote: saying('conclusion') },
  agreement: { text: 'it approves earlier work', quote: saying('agreement') },
  // A browsing agent's step is its own tool's action and result ("I clicked ... Here is ...").
  claim_without_tool: {
    text: 'it states figures without running a tool',
    quote: statesFigure,
    holds: ({ value }) => value('web_action') === 0 && value('has_tool_calls') === 0,
  },
  introduces_final_numbers: {
    text: 'it introduces figures that end up in the final answer',
    quote: statesFigure,
  },
  novel_numbers_log: { text: 'it introduces new figures', quote: statesFigure },
  first_actor: { text: 'it is the first agent action, which sets the plan the run follows' },
  agent_first_turn: { text: "it is this agent's first turn" },
  first_after_first_error: { text: 'it is the first response to the first failure' },
  // The feature counts any fence; a Magentic-One plan's roster mentions "```python code blocks".
  has_code: {
    text: 'it writes the code the run depends on',
    holds: ({ content }) => CODE_FENCE.test(content),
  },
  has_tool_calls: { text: 'it calls a tool' },
  web_action: { text: 'it is a navigation action', quote: saying('webAction') },
  similar_to_own_previous: { text: 'it repeats its own previous turn' },
  similar_to_any_previous: { text: 'it repeats earlier content' },
  speaker_directive: { text: 'it is an instruction to another agent' },
  speaker_thought: { text: "it is the orchestrator's own reasoning" },
  planning: { text: 'it lays out a plan', quote: saying('planning') },
  own_error_output: { text: 'it reports an error', quote: matching(ERROR_OUTPUT) },
  recorded_error: { text: 'the log records an error here', recorded: true },
  errors_after_share: { text: 'failures follow it' },
  next_review_no_progress: { text: 'the next progress review finds no progress' },
  next_review_loop: { text: 'the next progress review finds the run in a loop' },
  cause_of_first_stall: { text: 'it is the last action before the run first stalls' },
};

/** A line that introduces a member of a team: `ComputerTerminal: A computer terminal that ...`. */
const ROSTER_LINE = /^[-*\s]*\**[A-Za-z][\w-]*\**:\s+\S/;

/** The task as quotes are checked against it: squashed, and its words (tokens.ts). */
interface TaskText {
  squashed: string;
  /** Its lines of 20 characters or more, squashed. */
  lines: string[];
  words: WordSet;
}

/**
 * True when a line repeats the task: a line of it, the whole task with a framework's words around
 * it, or a line that opens with one of the task's and runs on (a framework joins the next text to
 * the task's last line).
 */
function restatesTask(line: string, task: TaskText): boolean {
  const question = task.squashed;
  if (line.length < 20) return false;
  // Most lines are ruled out cheaply: a line of the task opens with some of it; a line around the
  // whole task holds its opening.
  const head = line.slice(0, 20).toLowerCase();
  const opening = /\s\s|[\t\r]/.test(head) ? squash(line.slice(0, 60)).slice(0, 20) : head;
  if (
    !question.includes(opening) &&
    (question.length < 20 || !line.toLowerCase().includes(question.slice(0, 20)))
  )
    return false;
  const squashed = squash(line);
  return (
    question.includes(squashed) ||
    (question.length >= 20 && squashed.includes(question)) ||
    task.lines.some((taskLine) => squashed.startsWith(taskLine))
  );
}

/**
 * The lines of a step that may be quoted: trimmed, with a letter or digit (not a docstring's
 * `"""`); no code fences; nothing up to the step's last repetition of the task (what a framework
 * writes before it is its preamble: "You are given: (1) a task ...", "We are working to address
 * the following user request:"); no line of a roster (two or more lines that each introduce a
 * team member by name).
 */
function quotableLines(text: string, task: TaskText): string[] {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => /[\p{L}\p{N}]/u.test(line) && !line.startsWith('```'));
  const start = lines.findLastIndex((line) => restatesTask(line, task)) + 1;
  const after = start > 0 ? lines.slice(start) : lines;
  const rosterLines = after.filter((line) => ROSTER_LINE.test(line)).length;
  return rosterLines >= 2 ? after.filter((line) => !ROSTER_LINE.test(line)) : after;
}

/** Fewest words, and the share of them the task has, that make a line a paraphrase of the task. */
const PARAPHRASE_WORDS = 6;
const PARAPHRASE_SHARE = 0.8;

/** True when most of a line's words are the task's (a manager's "Determine the time the ..."). */
function paraphrasesTask(line: string, task: TaskText): boolean {
  const words = wordsIn(line);
  if (words.size < PARAPHRASE_WORDS) return false;
  let shared = 0;
  for (const word of words) if (task.words.has(word)) shared += 1;
  return shared >= PARAPHRASE_SHARE * words.size;
}

/** A quoted line, cut at 160 characters. */
export const shorten = (line: string) => (line.length > 160 ? `${line.slice(0, 157)}...` : line);

/** The first quotable line that shows a signal and does not paraphrase the task, shortened. */
function quoteLine(
  lines: readonly string[],
  shows: LineTest | undefined,
  task: TaskText,
): string | undefined {
  const line = lines.find(
    (candidate) => (!shows || shows(candidate)) && !paraphrasesTask(candidate, task),
  );
  return line && shorten(line);
}

/**
 * The error the source recorded for a step (a span's status, a failing tool result), shortened
 * like a quoted line: quoted where no line of the step names the failure the way a tool's own
 * output does (an OpenAI Agents span's "Error running tool: ...", Langfuse's "HTTP 429 ...").
 */
function recordedError(step: Step): string | undefined {
  const error = step.error ?? step.toolResults?.find((result) => result.isError)?.content;
  const line = error
    ?.split(/\r?\n/)
    .map((part) => part.trim())
    .find((part) => part.length > 0);
  return line && shorten(line);
}

/** Why a step is blamed: the reason, and the lines it quotes. */
export interface StepExplanation {
  reason: string;
  evidence: Evidence[];
}

/**
 * A reason for blaming `stepIndex`, from its features' contributions to the score; `lead`, when
 * given, is the signal that chose the step (first-failing-step.ts) and is named first.
 */
export function explainStep(
  trace: Trace,
  stepIndex: number,
  row: readonly number[],
  scorer: LinearScorer,
  lead?: FeatureName,
): StepExplanation {
  const step = trace.steps[stepIndex]!;
  const task: TaskText = {
    squashed: squashTask(trace.question ?? ''),
    lines: (trace.question ?? '')
      .split(/\r?\n/)
      .map(squash)
      .filter((line) => line.length >= 20),
    words: wordsIn(trace.question ?? ''),
  };
  const content = stepText(step);
  const view: StepView = {
    content,
    value: (feature) => row[FEATURE_NAMES.indexOf(feature)] ?? 0,
  };
  const contributions = FEATURE_NAMES.map((name, column) => ({
    feature: name,
    value: row[column]!,
    contribution:
      scorer.weights[column]! * ((row[column]! - scorer.mean[column]!) / scorer.scale[column]!),
  }))
    .filter((entry) => {
      const phrase = PHRASES[entry.feature];
      return (
        phrase !== undefined &&
        entry.value !== 0 &&
        (entry.feature === lead || entry.contribution > 0) &&
        (phrase.holds?.(view) ?? true)
      );
    })
    .sort(
      (left, right) =>
        Number(right.feature === lead) - Number(left.feature === lead) ||
        right.contribution - left.contribution,
    )
    .slice(0, 3);

  const linesOf = new Map<number, string[]>();
  const lines = (source: Step) => {
    let found = linesOf.get(source.index);
    if (!found)
      linesOf.set(
        source.index,
        (found = quotableLines(source === step ? content : stepText(source), task)),
      );
    return found;
  };
  const parts: string[] = [];
  const evidence: Evidence[] = [];
  for (const entry of contributions) {
    const phrase = PHRASES[entry.feature]!;
    parts.push(phrase.text);
    const source = phrase.quoteNext ? trace.steps[stepIndex + 1] : step;
    const quote = !source
      ? undefined
      : ((phrase.quote ? quoteLine(lines(source), phrase.quote, task) : undefined) ??
        (phrase.recorded ? recordedError(source) : undefined));
    if (quote && !evidence.some((existing) => existing.quote.includes(quote)))
      evidence.push({ step: source!.index, quote });
  }
  const because =
    parts.length > 0
      ? parts.join('; ')
      : 'its position and role make it the most likely decisive step';
  const fallbackQuote = evidence.length === 0 ? quoteLine(lines(step), undefined, task) : undefined;
  if (fallbackQuote) evidence.push({ step: step.index, quote: fallbackQuote });
  return {
    reason: `${step.agent} at step ${stepIndex}: ${because}.${quoting(trace, stepIndex, evidence)}`,
    evidence,
  };
}

/**
 * The evidence as a reason ends with it: ` Evidence: "..." / step 5 (tool): "..."` (a line of
 * another step than the named one says which); empty without evidence.
 */
export function quoting(trace: Trace, named: number, evidence: readonly Evidence[]): string {
  const quoted = evidence.map(({ step, quote }) =>
    step === named ? `"${quote}"` : `step ${step} (${trace.steps[step]!.agent}): "${quote}"`,
  );
  return quoted.length > 0 ? ` Evidence: ${quoted.join(' / ')}` : '';
}
