/**
 * Compares two aligned steps in substance (substance.ts): which aspects differ, a line saying how,
 * and the line of each step that shows it.
 */
import type { Aspect } from './types.js';
import type { StepFacts, StepSubstance } from './substance.js';

/** Longest quote, as the offline method's evidence quotes. */
const QUOTE_LENGTH = 160;
/**
 * Below this word similarity, two steps of the same role say different things (and a decision
 * only one of them states is substance: an approval replaced by other words).
 */
const OTHER_CONTENT = 0.2;
/** ...when both say at least this many words (a short reply can be reworded entirely). */
const CONTENT_WORDS = 6;

/** What differs between a failed step and the passing step aligned with it. */
export interface StepDifference {
  aspects: Aspect[];
  detail: string;
  failed: string;
  passed: string;
}

/** A line cut to QUOTE_LENGTH around `at` (a character position in it), `...` marking cuts. */
export function quoteLine(line: string, at = 0): string {
  const text = line.trim();
  if (text.length <= QUOTE_LENGTH) return text;
  const start = Math.max(0, Math.min(at - QUOTE_LENGTH / 3, text.length - QUOTE_LENGTH + 6));
  const cut = text.slice(Math.floor(start), Math.floor(start) + QUOTE_LENGTH - 6);
  return `${start > 0 ? '...' : ''}${cut}${start + QUOTE_LENGTH - 6 < text.length ? '...' : ''}`;
}

/** The first line holding `needle` (as a whole token where it is a figure), quoted around it. */
function lineWith(lines: readonly string[], needles: readonly string[]): string | undefined {
  for (const needle of needles) {
    const plain = needle.replace(/%$/, '');
    const pattern = new RegExp(`(?<![\\w.])${plain.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    for (const line of lines) {
      const at = line.search(pattern);
      if (at >= 0) return quoteLine(line, at);
    }
  }
  return undefined;
}

/** The first line of `lines` that `other` lacks, quoted; else the first line. */
function firstOwnLine(lines: readonly string[], other: readonly string[]): string {
  const theirs = new Set(other.map((line) => line.trim()));
  const own = lines.find((line) => !theirs.has(line.trim()));
  return quoteLine(own ?? lines[0] ?? '');
}

/** Items of `left` not in `right`. */
const without = (left: readonly string[], right: readonly string[]) => {
  const set = new Set(right);
  return left.filter((item) => !set.has(item));
};

/** The same items, in any order and count. */
const sameSet = (left: readonly string[], right: readonly string[]) =>
  without(left, right).length === 0 && without(right, left).length === 0;

/** Word-set Jaccard similarity. */
function wordSimilarity(left: readonly string[], right: readonly string[]): number {
  const a = new Set(left);
  const b = new Set(right);
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  return shared / (a.size + b.size - shared);
}

const listed = (items: readonly string[]) =>
  items.length <= 3
    ? items.join(', ')
    : `${items.slice(0, 3).join(', ')} and ${items.length - 3} more`;

/** What a step decides, as compared: accepts or rejects, and whether it ends the run. */
interface Decided {
  decision: number;
  terminates: boolean;
  words: readonly string[];
}

const verb = (decision: number) => (decision > 0 ? 'accepts' : 'rejects');

/**
 * How two steps' decisions differ, one line each: reversed; stated by one step only while the
 * steps otherwise say different things (an approval replaced by something else); or one ends the
 * run (`TERMINATE`, a final answer) where the other goes on.
 */
function decisionDetails(failed: Decided, passed: Decided): string[] {
  const details: string[] = [];
  if (failed.decision !== 0 && passed.decision !== 0 && failed.decision !== passed.decision)
    details.push(
      `the decision is reversed: it ${verb(failed.decision)} where the passing run ${verb(passed.decision)}`,
    );
  else if (
    failed.decision !== passed.decision &&
    wordSimilarity(failed.words, passed.words) < OTHER_CONTENT
  )
    details.push(
      failed.decision === 0
        ? `it makes no decision where the passing run ${verb(passed.decision)}`
        : `it ${verb(failed.decision)} where the passing run decides nothing`,
    );
  if (failed.terminates !== passed.terminates)
    details.push(
      failed.terminates
        ? 'it ends the run where the passing run goes on'
        : 'it goes on where the passing run ends',
    );
  return details;
}

/**
 * The passing step's lines a failed step leaves out when it says nothing else: each of its lines
 * is one of the passing step's, and some of those are missing (a reply cut short). Empty otherwise;
 * a reworded step never has all its lines verbatim in the other.
 */
function missingLines(failed: readonly string[], passed: readonly string[]): string[] {
  const own = new Set(failed.map((line) => line.trim()));
  const theirs = new Set(passed.map((line) => line.trim()));
  if (own.size === 0 || [...own].some((line) => !theirs.has(line))) return [];
  return passed.filter((line) => !own.has(line.trim()));
}

/** A step with its facts read, as compared. */
type Compared = StepSubstance & StepFacts;

/** The differences found so far, and the first line of each step quoted for them. */
interface Found {
  aspects: Aspect[];
  details: string[];
  failedQuote: string | undefined;
  passedQuote: string | undefined;
}

/** Notes an aspect that differs, how, and (where none is quoted yet) the lines that show it. */
function note(
  found: Found,
  aspect: Aspect,
  detail: string | undefined,
  quotes?: [failed: string | undefined, passed: string | undefined],
): void {
  found.aspects.push(aspect);
  if (detail !== undefined) found.details.push(detail);
  if (quotes) {
    found.failedQuote ??= quotes[0];
    found.passedQuote ??= quotes[1];
  }
}

/** Tool calls, figures and code: what one step has that the other lacks. */
function setDifferences(failed: Compared, passed: Compared, found: Found): void {
  if (!sameSet(failed.calls, passed.calls)) {
    const added = without(failed.calls, passed.calls);
    const dropped = without(passed.calls, failed.calls);
    note(
      found,
      'tool calls',
      added.length > 0 && dropped.length > 0
        ? `a tool call changed: ${listed(added)} where the passing run calls ${listed(dropped)}`
        : added.length > 0
          ? `a tool call the passing run does not make: ${listed(added)}`
          : `the passing run's tool call is not made: ${listed(dropped)}`,
      [
        added.length > 0 ? quoteLine(added[0]!) : '(no tool call)',
        dropped.length > 0 ? quoteLine(dropped[0]!) : '(no tool call)',
      ],
    );
  }
  if (!sameSet(failed.numbers, passed.numbers)) {
    const added = without(failed.numbers, passed.numbers);
    const dropped = without(passed.numbers, failed.numbers);
    note(
      found,
      'numbers',
      added.length > 0 && dropped.length > 0
        ? `a figure changed: ${listed(added)} where the passing run has ${listed(dropped)}`
        : added.length > 0
          ? `a figure the passing run does not give: ${listed(added)}`
          : `a figure of the passing run is missing: ${listed(dropped)}`,
      [lineWith(failed.lines, added), lineWith(passed.lines, dropped)],
    );
  }
  if (!sameSet(failed.code, passed.code)) {
    const added = without(failed.code, passed.code);
    const dropped = without(passed.code, failed.code);
    note(found, 'code', 'the code differs', [
      added.length > 0 ? quoteLine(added[0]!) : undefined,
      dropped.length > 0 ? quoteLine(dropped[0]!) : undefined,
    ]);
  }
}

/**
 * Where nothing else differs: a step cut short (all its lines the passing step's, some missing),
 * or one that says something else (few words in common).
 */
function contentDifference(failed: Compared, passed: Compared, found: Found): void {
  const missing = missingLines(failed.lines, passed.lines);
  if (missing.length > 0) {
    note(
      found,
      'content',
      `it stops short: ${missing.length} of the passing step's ${passed.lines.length} lines ${missing.length === 1 ? 'is' : 'are'} missing`,
      [quoteLine(failed.lines.at(-1) ?? ''), quoteLine(missing[0]!)],
    );
  } else if (
    failed.role === passed.role &&
    failed.words.length >= CONTENT_WORDS &&
    passed.words.length >= CONTENT_WORDS &&
    wordSimilarity(failed.words, passed.words) < OTHER_CONTENT
  ) {
    note(found, 'content', 'it says something else');
  }
}

/** How a failed step differs in substance from the passing step aligned with it (none: empty). */
export function compareSteps(failedStep: StepSubstance, passedStep: StepSubstance): StepDifference {
  // Steps alike in text, calls and recorded error agree in everything else too.
  if (
    failedStep.text === passedStep.text &&
    failedStep.agent === passedStep.agent &&
    failedStep.role === passedStep.role &&
    failedStep.error === passedStep.error &&
    sameSet(failedStep.calls, passedStep.calls)
  )
    return { aspects: [], detail: '', failed: '', passed: '' };
  const failed: Compared = { ...failedStep, ...failedStep.facts() };
  const passed: Compared = { ...passedStep, ...passedStep.facts() };
  const found: Found = { aspects: [], details: [], failedQuote: undefined, passedQuote: undefined };

  if (failed.agent !== passed.agent || failed.role !== passed.role)
    note(found, 'agent', 'another agent speaks here');
  setDifferences(failed, passed, found);
  const decision = decisionDetails(failed, passed);
  if (decision.length > 0) {
    note(found, 'decision', undefined);
    found.details.push(...decision);
  }
  if (failed.error !== passed.error) {
    note(
      found,
      'error',
      failed.error
        ? 'it records an error the passing run does not'
        : 'the passing run records an error here',
    );
  }
  if (found.aspects.length === 0) contentDifference(failed, passed, found);
  return {
    aspects: found.aspects,
    detail: found.details.join('; '),
    failed: found.failedQuote ?? firstOwnLine(failed.lines, passed.lines),
    passed: found.passedQuote ?? firstOwnLine(passed.lines, failed.lines),
  };
}
