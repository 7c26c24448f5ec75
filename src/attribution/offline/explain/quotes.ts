/**
 * What a reason may quote of a step, and which of its lines show a signal: lines trimmed, never
 * the task, a paraphrase of it, a framework's preamble or a roster; line tests for phrases,
 * patterns and figures (a figure new to the run, as the features read the run's figures); and
 * quotes cut at 160 characters, around the figure they are quoted for.
 */
import type { Step, Trace } from '../../../trace/model.js';
import { squash, squashTask, stepText } from '../../../trace/step-text.js';
import { hasPhrase, type PhraseSignal } from '../features/phrases.js';
import { figuresOf, runFactsOf, type RunFigures } from '../features/run-facts.js';
import { firstNumberAt, numbersIn } from '../features/text-signals.js';
import { wordsIn, type WordSet } from '../features/tokens.js';

/** What a line test may read besides the line: the run's figures, as the features read them. */
interface QuoteContext {
  /** Whether the task or a step before the quoted one gives a figure. */
  seenBefore: (figure: string) => boolean;
  /** Figures of the final claim that the task does not give. */
  finalFigures: () => ReadonlySet<string>;
}

/** Which lines of a step show a signal. */
export type LineTest = (line: string, context: QuoteContext) => boolean;
/** Lines that match a pattern. */
export const matching =
  (pattern: RegExp): LineTest =>
  (line) =>
    pattern.test(line);
/** Lines that say what a phrase signal names (phrases.ts). */
export const saying =
  (signal: PhraseSignal): LineTest =>
  (line) =>
    hasPhrase(signal, line);

/** A list marker ("1. ", "(2)", "- 3) "), which numbers a line rather than states a figure. */
const LEADING_MARKER = /^[-*\s]*\(?\d+[.)]\s+/;
const INLINE_MARKER = /\(\d+\)/g;
/** A line without its list markers. */
const unmarked = (line: string) => line.replace(LEADING_MARKER, '').replace(INLINE_MARKER, '');
/** A line that states a figure: a digit besides its list markers. */
export const statesFigure: LineTest = (line) => /\d/.test(unmarked(line));
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
/** Any line. */
export const anyLine: LineTest = () => true;
/** A line that is not a runtime's warning or exception: what the agent itself wrote. */
export const notRuntimeRecord: LineTest = (line) => !RUNTIME_RECORD.test(line);
/** A line that brings a figure new to the run. */
export const statesNewFigure: LineTest = (line, context) => newFigures(line, context).length > 0;
/** A line that brings a figure new to the run that the final claim repeats. */
export const statesFinalFigure: LineTest = (line, context) =>
  newFigures(line, context).some((figure) => context.finalFigures().has(figure));
/** The tests that find a line for the new figures it brings. */
const FIGURE_TESTS: ReadonlySet<LineTest> = new Set([statesNewFigure, statesFinalFigure]);

/** A line that introduces a member of a team: `ComputerTerminal: A computer terminal that ...`. */
const ROSTER_LINE = /^[-*\s]*[A-Za-z][\w-]*\**:\s+\S/;

/** The task as quotes are checked against it: squashed, and its words (tokens.ts). */
interface TaskText {
  squashed: string;
  /** Its lines of 20 characters or more, squashed. */
  lines: string[];
  words: WordSet;
}

/** The task of a trace as quotes are checked against it. */
function taskTextOf(question: string): TaskText {
  return {
    squashed: squashTask(question),
    lines: question
      .split(/\r?\n/)
      .map(squash)
      .filter((line) => line.length >= 20),
    words: wordsIn(question),
  };
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
 * Most characters read for quotes at each end of a step. A longer step (a tool that printed a whole
 * data dump) is read at its head and tail only, as the features read every step (step-facts.ts),
 * so that its lines, their words and their figures are never all held at once: quoting a 200 MB
 * step held gigabytes. No step of the shared data sets comes near (46,000 characters at most).
 */
const QUOTED_END = 500_000;

/**
 * The text of a step that quotes are looked for in: all of it, or its first and last QUOTED_END
 * characters cut at line breaks (mid-line only where a line is longer than that).
 */
function quotedText(text: string): string {
  if (text.length <= 2 * QUOTED_END) return text;
  const headEnd = text.lastIndexOf('\n', QUOTED_END);
  const tailStart = text.indexOf('\n', text.length - QUOTED_END);
  const head = text.slice(0, headEnd > 0 ? headEnd : QUOTED_END);
  const tail = text.slice(tailStart >= 0 ? tailStart + 1 : text.length - QUOTED_END);
  return `${head}\n${tail}`;
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
 * Finds the lines a reason quotes in a trace's steps: each step's quotable lines, and the first of
 * them that passes a test and does not paraphrase the task, each looked for once (a reason's
 * wording and its quotes ask the same questions).
 */
export class Quoter {
  private readonly linesOf = new Map<number, string[]>();
  private readonly firstOf = new Map<number, Map<LineTest, string | undefined>>();
  private readonly contexts = new Map<number, QuoteContext>();
  private readonly task: TaskText;

  /** `figures` are the run's as the features read them, where the caller has them. */
  constructor(
    private readonly trace: Trace,
    private figures: RunFigures | undefined,
  ) {
    this.task = taskTextOf(trace.question ?? '');
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
      // A set: a long line's figures number in the thousands, and searching a list of them for each
      // of its numbers took minutes on a 200 MB line.
      const figures = new Set(newFigures(line, this.contextOf(source.index)));
      const at = firstNumberAt(line, (number) => figures.has(number));
      return shortenAround(line, Math.max(at, 0));
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
      this.linesOf.set(
        source.index,
        (found = quotableLines(quotedText(stepText(source)), this.task)),
      );
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
