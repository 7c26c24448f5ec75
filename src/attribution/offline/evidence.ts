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
import { figuresOf, runFactsOf, type RunFigures } from './run-facts.js';
import { ERROR_OUTPUT, numbersIn } from './text-signals.js';
import { wordsIn, type WordSet } from './tokens.js';

/** What a line test may read besides the line: the run's figures, as the features read them. */
interface QuoteContext {
  /** Whether the task or a step before the quoted one gives a figure. */
  seenBefore: (figure: string) => boolean;
  /** Figures of the final claim that the task does not give. */
  finalFigures: () => ReadonlySet<string>;
}

/** Which lines of a step show a signal. */
type LineTest = (line: string, context: QuoteContext) => boolean;
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
/** A line without its list markers. */
const unmarked = (line: string) => line.replace(LEADING_MARKER, '').replace(INLINE_MARKER, '');
/** A line that states a figure: a digit besides its list markers. */
const statesFigure: LineTest = (line) => /\d/.test(unmarked(line));
/** A traceback's `line 394`, which numbers a line of code rather than states a figure. */
const CODE_LINE_NUMBER = /\bline \d+/g;
/**
 * A link or a path (`https://…`, `/usr/lib/python3.11/agent.py:216`): a token with a letter and
 * `://` or two slashes (`g/mL`, `and/or` and `</code>` are not; `11/30/2024` has no letter).
 */
const isPathOrLink = (token: string) =>
  /[A-Za-z]/.test(token) && (token.includes('://') || /[/\\].*[/\\]/.test(token));
/** A runtime's warning or exception record (`UserWarning: ...`, `openai.BadRequestError: ...`). */
const RUNTIME_RECORD = /\w(?:Warning|Error|Exception):/;

/**
 * Figures of a line that neither the task nor an earlier step gave; list markers, paths, links,
 * traceback line numbers and a runtime's warnings and exceptions are not figures a person would
 * check (an error is quoted as an error).
 */
function newFigures(line: string, context: QuoteContext): string[] {
  if (!/\d/.test(line) || RUNTIME_RECORD.test(line)) return [];
  let text = unmarked(line);
  if (text.includes('line ')) text = text.replace(CODE_LINE_NUMBER, ' ');
  // Only a line with a slash can hold a path or a link (most lines have none).
  if (/[/\\]/.test(text))
    text = text
      .split(/\s+/)
      .filter((token) => !isPathOrLink(token))
      .join(' ');
  return [...numbersIn(text)].filter((figure) => !context.seenBefore(figure));
}
/** Any line; and one that is not a runtime's warning or exception (what the agent itself wrote). */
const anyLine: LineTest = () => true;
const notRuntimeRecord: LineTest = (line) => !RUNTIME_RECORD.test(line);
/** A number as a line writes it (numbersIn drops its commas). */
const NUMBER_AS_WRITTEN = /\b\d+(?:[.,]\d+)?\b/g;
/** Where the first of some figures stands in a line as written, else 0. */
function firstFigureAt(line: string, figures: readonly string[]): number {
  for (const match of line.matchAll(NUMBER_AS_WRITTEN))
    if (figures.includes(match[0].replace(/,/g, ''))) return match.index;
  return 0;
}
/** A line that brings a figure new to the run. */
const statesNewFigure: LineTest = (line, context) => newFigures(line, context).length > 0;
/** A line that brings a figure new to the run that the final claim repeats. */
const statesFinalFigure: LineTest = (line, context) =>
  newFigures(line, context).some((figure) => context.finalFigures().has(figure));
/** The tests that find a line for the new figures it brings. */
const FIGURE_TESTS: ReadonlySet<LineTest> = new Set([statesNewFigure, statesFinalFigure]);

/** A step's content and its feature values, by name. */
interface StepView {
  content: string;
  value: (feature: FeatureName) => number;
  /** Whether a line that may be quoted states a figure, and one new to the run (newFigures). */
  showsFigure: () => boolean;
  showsNewFigure: () => boolean;
}

/**
 * Where a signal about what follows a step is read, as its feature reads it: the output right
 * after the step (or the one after that, past a step that is not an agent's turn), or the next
 * agent turn. The steps to quote from, in order.
 */
type QuoteFrom = 'next-output' | 'next-turn';
function followingSteps(trace: Trace, index: number, from: QuoteFrom): Step[] {
  const { steps } = trace;
  if (from === 'next-turn') {
    const turn = steps.slice(index + 1).find((step) => step.role === 'agent');
    return turn ? [turn] : [];
  }
  const next = steps[index + 1];
  if (!next) return [];
  const after = steps[index + 2];
  return next.role !== 'agent' && after ? [next, after] : [next];
}

/**
 * How each signal reads in a reason, which line pattern to quote for it (in the step, or with
 * `quoteFrom` in what follows it as its feature reads it; several patterns are tried in order,
 * the first that some line shows wins; with `recorded`, where no line matches, the error the
 * source recorded for that step), and (`holds`) what the step must show for the words to be true
 * where the feature is read more loosely.
 */
const PHRASES: Partial<
  Record<
    FeatureName,
    {
      text: string;
      quote?: LineTest | readonly LineTest[];
      quoteFrom?: QuoteFrom;
      recorded?: boolean;
      holds?: (step: StepView) => boolean;
    }
  >
> = {
  next_error: {
    text: 'the tool output right after it fails',
    quote: matching(ERROR_OUTPUT),
    quoteFrom: 'next-output',
    recorded: true,
  },
  next_empty: { text: 'the tool output right after it is empty' },
  next_correction: {
    text: 'the next agent turn corrects it',
    quote: saying('correction'),
    quoteFrom: 'next-turn',
  },
  hedging: {
    text: 'it assumes or makes up data instead of obtaining it',
    quote: saying('hedging'),
  },
  inability: { text: 'it gives up on part of the task', quote: saying('inability') },
  conclusion: { text: 'it asserts a conclusion', quote: saying('conclusion') },
  agreement: { text: 'it approves earlier work', quote: saying('agreement') },
  // A browsing agent's step is its own tool's action and result ("I clicked ... Here is ...").
  // Figures are quoted where the step brings them, not where it restates the task's or others'.
  claim_without_tool: {
    text: 'it states figures without running a tool',
    quote: [statesNewFigure, statesFigure],
    holds: ({ value, showsFigure }) =>
      value('web_action') === 0 && value('has_tool_calls') === 0 && showsFigure(),
  },
  // Counted in a runtime's warning (a model name's date) or a path, they are not said to be new.
  introduces_final_numbers: {
    text: 'it introduces figures that end up in the final answer',
    quote: [statesFinalFigure, statesNewFigure],
    holds: ({ showsNewFigure }) => showsNewFigure(),
  },
  novel_numbers_log: {
    text: 'it introduces new figures',
    quote: statesNewFigure,
    holds: ({ showsNewFigure }) => showsNewFigure(),
  },
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

/** Longest quote. */
const QUOTE_LENGTH = 160;
/** A quoted line, cut at 160 characters. */
export const shorten = (line: string) =>
  line.length > QUOTE_LENGTH ? `${line.slice(0, QUOTE_LENGTH - 3)}...` : line;
/** How much of a long line a quote shows before the figure it is quoted for. */
const BEFORE_FIGURE = 60;

/**
 * A quoted line cut around character `at` (where the figure it is quoted for stands), so that a
 * figure late in a long line is not cut off: `...` marks a cut at either end.
 */
function shortenAround(line: string, at: number): string {
  const shown = QUOTE_LENGTH - 3;
  if (line.length <= QUOTE_LENGTH || at + BEFORE_FIGURE / 2 < shown) return shorten(line);
  const start = at - BEFORE_FIGURE;
  if (start + shown >= line.length) return `...${line.slice(line.length - shown)}`;
  return `...${line.slice(start, start + shown - 3)}...`;
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
 * Finds the lines a reason quotes in a trace's steps: each step's quotable lines, and the first of
 * them that passes a test and does not paraphrase the task, each looked for once (a reason's
 * wording and its quotes ask the same questions).
 */
class Quoter {
  private readonly linesOf = new Map<number, string[]>();
  private readonly firstOf = new Map<number, Map<LineTest, string | undefined>>();
  private readonly contexts = new Map<number, QuoteContext>();
  private figures: RunFigures | undefined;

  constructor(
    private readonly trace: Trace,
    private readonly task: TaskText,
    figures: RunFigures | undefined,
  ) {
    this.figures = figures;
  }

  /**
   * The line of `source` to quote: the first to pass the first of `shows` that any passes; a long
   * line quoted for its new figures is cut around the first of them.
   */
  quote(source: Step, shows: LineTest | readonly LineTest[]): string | undefined {
    for (const test of typeof shows === 'function' ? [shows] : shows) {
      const line = this.first(source, test);
      if (line === undefined) continue;
      if (line.length <= QUOTE_LENGTH || !FIGURE_TESTS.has(test)) return shorten(line);
      const figures = newFigures(line, this.contextOf(source.index));
      return shortenAround(line, firstFigureAt(line, figures));
    }
    return undefined;
  }

  /** Whether a quotable line of `source` passes `test`. */
  shows(source: Step, test: LineTest): boolean {
    return this.first(source, test) !== undefined;
  }

  private first(source: Step, test: LineTest): string | undefined {
    let tested = this.firstOf.get(source.index);
    if (!tested) this.firstOf.set(source.index, (tested = new Map()));
    if (!tested.has(test)) {
      const context = this.contextOf(source.index);
      tested.set(
        test,
        this.lines(source).find((line) => test(line, context) && !paraphrasesTask(line, this.task)),
      );
    }
    return tested.get(test);
  }

  private lines(source: Step): string[] {
    let found = this.linesOf.get(source.index);
    if (!found)
      this.linesOf.set(source.index, (found = quotableLines(stepText(source), this.task)));
    return found;
  }

  /** What a test of step `index`'s lines reads: the run's figures, as they stood before it. */
  private contextOf(index: number): QuoteContext {
    let context = this.contexts.get(index);
    if (!context) {
      context = {
        seenBefore: (figure) => (this.runFigures().firstSeen.get(figure) ?? index) < index,
        finalFigures: () => this.runFigures().final,
      };
      this.contexts.set(index, context);
    }
    return context;
  }

  private runFigures(): RunFigures {
    return (this.figures ??= figuresOf(runFactsOf(this.trace)));
  }
}

/**
 * A reason for blaming `stepIndex`, from its features' contributions to the score; `lead`, when
 * given, is the signal that chose the step (first-failing-step.ts) and is named first. `figures`
 * are the run's as the features read them, where the caller has them (else computed when needed).
 */
export function explainStep(
  trace: Trace,
  stepIndex: number,
  row: readonly number[],
  scorer: LinearScorer,
  lead?: FeatureName,
  figures?: RunFigures,
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
  const quoter = new Quoter(trace, task, figures);
  const view: StepView = {
    content,
    value: (feature) => row[FEATURE_NAMES.indexOf(feature)] ?? 0,
    showsFigure: () => quoter.shows(step, statesFigure),
    showsNewFigure: () => quoter.shows(step, statesNewFigure),
  };
  // The three strongest signals whose words hold for the step (checked strongest first, and only
  // until three are found: a check may read the step's lines).
  const contributions = FEATURE_NAMES.map((name, column) => ({
    feature: name,
    value: row[column]!,
    contribution:
      scorer.weights[column]! * ((row[column]! - scorer.mean[column]!) / scorer.scale[column]!),
  }))
    .filter(
      (entry) =>
        PHRASES[entry.feature] !== undefined &&
        entry.value !== 0 &&
        (entry.feature === lead || entry.contribution > 0),
    )
    .sort(
      (left, right) =>
        Number(right.feature === lead) - Number(left.feature === lead) ||
        right.contribution - left.contribution,
    );
  const named: typeof contributions = [];
  for (const entry of contributions) {
    if (named.length === 3) break;
    if (PHRASES[entry.feature]!.holds?.(view) ?? true) named.push(entry);
  }

  const parts: string[] = [];
  const evidence: Evidence[] = [];
  for (const entry of named) {
    const phrase = PHRASES[entry.feature]!;
    parts.push(phrase.text);
    const sources = phrase.quoteFrom ? followingSteps(trace, stepIndex, phrase.quoteFrom) : [step];
    for (const source of sources) {
      const quote =
        (phrase.quote ? quoter.quote(source, phrase.quote) : undefined) ??
        (phrase.recorded ? recordedError(source) : undefined);
      if (!quote) continue;
      if (!evidence.some((existing) => existing.quote.includes(quote)))
        evidence.push({ step: source.index, quote });
      break;
    }
  }
  const because =
    parts.length > 0
      ? parts.join('; ')
      : 'its position and role make it the most likely decisive step';
  const fallbackQuote =
    evidence.length === 0 ? quoter.quote(step, [notRuntimeRecord, anyLine]) : undefined;
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
