/**
 * Plain-text signals read from step content: errors, empty output, code, links, numbers,
 * word-set overlap.
 * Kept apart from the feature table so each pattern is named, documented and testable on its own;
 * what agents say (hedging, claims, plans) is in phrases.ts.
 */
import type { WordSet } from './tokens.js';

/** A tool or interpreter reporting failure (`error:` also catches `ValueError:` and the like). */
export const ERROR_OUTPUT =
  /(exitcode:\s*[1-9]|execution failed|traceback \(most recent call last\)|error:|\bexception\b|command not found|no such file|status code [45]\d\d|\b(404|403|500) (not found|forbidden|internal))/i;
/** Output that carries nothing: an empty result or a no-op notice. */
export const EMPTY_OUTPUT =
  /(code output:\s*$|there is no code from the last|returned none|no results? found|\[\]\s*$|empty dataframe)/i;
/** Ending the run (matched case-sensitively: the markers are written in capitals). */
const TERMINATION = /\b(TERMINATE|FINAL ANSWER|task (is )?complete)\b/;
/** The same phrases without the word boundaries: a quicker scan that rules out most steps. */
const TERMINATION_PHRASE = /TERMINATE|FINAL ANSWER|task (?:is )?complete/;

/** True when the text ends the run. */
export function isTermination(text: string): boolean {
  return TERMINATION_PHRASE.test(text) && TERMINATION.test(text);
}

const CODE_BLOCK = /```/;
/** A number: thousands in groups of three (`1,250.00`), or digits with one decimal part. */
const NUMBER = /\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+(?:[.,]\d+)?\b/g;
const URL = /https?:\/\//i;

/** True when the text holds a fenced code block. */
export function hasCode(text: string): boolean {
  return CODE_BLOCK.test(text);
}

/** True when the text holds a link. */
export function hasUrl(text: string): boolean {
  return URL.test(text);
}

/**
 * A number as written, normalised to compare by value: commas (thousands separators) dropped, and
 * a decimal's trailing zeros, so `49` = `49.0` = `49.00` and `12.5` = `12.50`.
 */
export function normalisedNumber(number: string): string {
  const plain = number.includes(',') ? number.replace(/,/g, '') : number;
  if (!plain.includes('.')) return plain;
  // Trailing zeros of the decimal part, then a bare point (one pass from the end, no pattern).
  let end = plain.length;
  while (plain[end - 1] === '0') end -= 1;
  if (plain[end - 1] === '.') end -= 1;
  return plain.slice(0, end);
}
const normalised = normalisedNumber;

/** Numbers written in the text, normalised to compare by value (see `normalisedNumber`). */
export function numbersIn(text: string): Set<string> {
  const out = new Set<string>();
  // `match` with a global pattern gives the matched strings alone (no match objects to allocate).
  for (const number of text.match(NUMBER) ?? []) out.add(normalised(number));
  return out;
}

/** Where the first number of the text that `wanted` accepts (normalised) stands, else -1. */
export function firstNumberAt(text: string, wanted: (number: string) => boolean): number {
  for (const match of text.matchAll(NUMBER)) if (wanted(normalised(match[0]))) return match.index;
  return -1;
}

/** Share of `left` also in `right` (0 when `left` is empty). */
export function coverage(left: WordSet, right: WordSet): number {
  return left.size === 0 ? 0 : left.sharedWith(right) / left.size;
}

/** Jaccard similarity of two word sets. */
export function jaccard(left: WordSet, right: WordSet): number {
  if (left.size === 0 && right.size === 0) return 0;
  const shared = left.size <= right.size ? left.sharedWith(right) : right.sharedWith(left);
  return shared / (left.size + right.size - shared);
}
