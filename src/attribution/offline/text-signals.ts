/**
 * Plain-text signals read from step content: errors, code, hedging, claims. Kept apart from the
 * feature table so each pattern is named, documented and testable on its own.
 */

/** A tool or interpreter reporting failure. */
export const ERROR_OUTPUT =
  /(exitcode:\s*[1-9]|execution failed|traceback \(most recent call last\)|\b\w*error:|\bexception\b|command not found|no such file|status code [45]\d\d|\b(404|403|500) (not found|forbidden|internal))/i;
/** Output that carries nothing: an empty result or a no-op notice. */
export const EMPTY_OUTPUT =
  /(code output:\s*$|there is no code from the last|returned none|no results? found|\[\]\s*$|empty dataframe)/i;
/*
 * The phrase patterns below are matched against lower-cased text (case-insensitive regular
 * expressions are several times slower), so they are written in lower case without the i flag.
 */

/** The speaker assumes, simulates or makes data up instead of obtaining it. */
export const HEDGING =
  /\b(assum(e|ing|ption)|hypothetical(ly)?|simulat(e|ed|ing)|placeholder|mock|dummy|sample data|example data|for (the sake of )?(example|illustration)|let'?s say|suppose|fictional|made[- ]up|approximate(ly)?|estimate[ds]?|likely|probably)\b/;
/** The speaker says it cannot do something. */
export const INABILITY =
  /\b(i (cannot|can'?t|am unable|was unable)|unable to|not (able|possible) to|could not (find|access|locate)|couldn'?t (find|access)|no (access|information) (to|about|on))\b/;
/** A claimed conclusion or final answer. */
export const CONCLUSION =
  /\b(final answer|the answer is|in conclusion|therefore|thus,|we have (verified|confirmed|determined)|conclusion:|the result is|has been (verified|confirmed))\b/;
/** Agreement without checking. */
export const AGREEMENT =
  /\b(verified|confirmed|correct(ly)?|accurate|looks good|agree|well done|approved?)\b/;
/** Ending the run. */
export const TERMINATION = /\b(TERMINATE|FINAL ANSWER|task (is )?complete)\b/;
/** Plans and re-plans. */
export const PLANNING =
  /\b(plan|step \d|next,? (i|we)('ll| will)|let'?s (start|begin|proceed)|first,? (i|we))\b/;
/** Corrections of earlier content. */
export const CORRECTION =
  /\b(mistake|incorrect|wrong|error in|re-?evaluate|let me correct|apologi[sz]e|actually,|instead)\b/;
/** Reports of work done that the log does not show being done: retrieving, watching, checking. */
export const UNSUPPORTED_CLAIM =
  /\b(i (have|'ve) (successfully )?(retrieved|found|located|verified|reviewed|accessed|watched|checked|visited|confirmed)|manually|after (reviewing|visiting|checking|watching)|based on (my|the) (knowledge|research|review|observations?)|i will (watch|review|visit|check) .{0,40}and (document|provide|report))\b/;
/** Navigation actions of web agents. */
export const WEB_ACTION =
  /\b(clicked|typed|scrolled|visited|navigat(ed|ing)|web_search|search(ed)? for|page (title|shows))\b/;

const CODE_BLOCK = /```/;
const NUMBER = /\b\d+(?:[.,]\d+)?\b/g;
const NON_WORD = /[^a-z0-9]+/;
const URL = /https?:\/\//i;

/** True when the text holds a fenced code block. */
export function hasCode(text: string): boolean {
  return CODE_BLOCK.test(text);
}

/** True when the text holds a link. */
export function hasUrl(text: string): boolean {
  return URL.test(text);
}

/** Numbers written in the text, normalised (commas dropped). */
export function numbersIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const match of text.matchAll(NUMBER)) out.add(match[0].replace(/,/g, ''));
  return out;
}

/** Lower-case word tokens of length ≥ 3. */
export function wordsIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.toLowerCase().split(NON_WORD)) if (word.length >= 3) out.add(word);
  return out;
}

/** Share of `left` also in `right` (0 when `left` is empty). */
export function coverage(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  if (left.size === 0) return 0;
  let shared = 0;
  for (const item of left) if (right.has(item)) shared += 1;
  return shared / left.size;
}

/** Jaccard similarity of two token sets. */
export function jaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  if (left.size === 0 && right.size === 0) return 0;
  const [small, large] = left.size <= right.size ? [left, right] : [right, left];
  let shared = 0;
  for (const item of small) if (large.has(item)) shared += 1;
  return shared / (left.size + right.size - shared);
}

/** True when `answer` (normalised) appears in `text`. */
export function mentions(text: string, answer: string): boolean {
  const needle = answer.trim().toLowerCase();
  if (needle.length === 0) return false;
  return text.toLowerCase().includes(needle);
}
