/**
 * Phrase signals: what an agent says it did or concluded (hedging, giving up, claiming, planning…).
 * Each signal is a list of phrases matched against a text's lower-case tokens (tokens.ts), so one
 * pass over the tokens finds every signal at once (a regular expression per signal was the slowest
 * part of attributing).
 *
 * A phrase is words joined by exactly what must stand between them in the text: a space, a comma
 * and a space ("next, we"), an apostrophe ("can't") or a hyphen ("made-up"). `#` stands for any
 * token that starts with a digit and `…` for a gap of up to GAP_TOKENS tokens. Words may hold
 * underscores (`web_search`), as tokens do.
 */
import { hashWord, readWords, type Tokens } from './tokens.js';

/** The phrase lists, one per signal. */
const PHRASE_LISTS = {
  /** The speaker assumes, simulates or makes data up instead of obtaining it. */
  hedging: [
    'assume',
    'assuming',
    'assumption',
    'hypothetical',
    'hypothetically',
    'simulate',
    'simulated',
    'simulating',
    'placeholder',
    'mock',
    'dummy',
    'sample data',
    'example data',
    'for example',
    'for illustration',
    'for the sake of example',
    'for the sake of illustration',
    "let's say",
    'lets say',
    'suppose',
    'fictional',
    'made up',
    'made-up',
    'approximate',
    'approximately',
    'estimate',
    'estimated',
    'estimates',
    'likely',
    'probably',
  ],
  /** The speaker says it cannot do something. */
  inability: [
    'i cannot',
    "i can't",
    'i cant',
    'i am unable',
    'i was unable',
    'unable to',
    'not able to',
    'not possible to',
    'could not find',
    'could not access',
    'could not locate',
    "couldn't find",
    "couldn't access",
    'no access to',
    'no information about',
    'no information on',
  ],
  /** A claimed conclusion or final answer. */
  conclusion: [
    'final answer',
    'the answer is',
    'in conclusion',
    'therefore',
    'we have verified',
    'we have confirmed',
    'we have determined',
    'the result is',
    'has been verified',
    'has been confirmed',
  ],
  /** Agreement without checking. */
  agreement: [
    'verified',
    'confirmed',
    'correct',
    'correctly',
    'accurate',
    'looks good',
    'agree',
    'well done',
    'approve',
    'approved',
  ],
  /** Plans and re-plans. */
  planning: [
    'plan',
    'step #',
    "next i'll",
    "next, i'll",
    'next, i will',
    'next i will',
    "next we'll",
    "next, we'll",
    'next, we will',
    'next we will',
    "let's start",
    "let's begin",
    "let's proceed",
    'lets start',
    'lets begin',
    'lets proceed',
    'first i',
    'first we',
    'first, i',
    'first, we',
  ],
  /** Corrections of earlier content. */
  correction: [
    'mistake',
    'incorrect',
    'wrong',
    'error in',
    're-evaluate',
    'reevaluate',
    'let me correct',
    'apologise',
    'apologize',
    'instead',
  ],
  /** Reports of work done that the log does not show being done: retrieving, watching, checking. */
  unsupported: [
    ...['i have', "i've", 'i have successfully', "i've successfully"].flatMap((start) =>
      [
        'retrieved',
        'found',
        'located',
        'verified',
        'reviewed',
        'accessed',
        'watched',
        'checked',
        'visited',
        'confirmed',
      ].map((verb) => `${start} ${verb}`),
    ),
    'manually',
    'after reviewing',
    'after visiting',
    'after checking',
    'after watching',
    ...['my', 'the'].flatMap((whose) =>
      ['knowledge', 'research', 'review', 'observation', 'observations'].map(
        (source) => `based on ${whose} ${source}`,
      ),
    ),
    ...['watch', 'review', 'visit', 'check'].flatMap((verb) =>
      ['document', 'provide', 'report'].map((then) => `i will ${verb} … and ${then}`),
    ),
  ],
  /** Navigation actions of web agents. */
  webAction: [
    'clicked',
    'typed',
    'scrolled',
    'visited',
    'navigated',
    'navigating',
    'web_search',
    'search for',
    'searched for',
    'page title',
    'page shows',
  ],
  /** A planner saying the run is stuck. */
  stalled: [
    'no progress',
    'not making progress',
    'stuck',
    'in a loop',
    'going in circles',
    'repeated the same',
    'repeating the same',
  ],
} as const satisfies Record<string, readonly string[]>;

/** A phrase signal's name. */
export type PhraseSignal = keyof typeof PHRASE_LISTS;

/** Which phrase signals a text holds. */
export type PhraseHits = Record<PhraseSignal, boolean>;

const SIGNALS = Object.keys(PHRASE_LISTS) as PhraseSignal[];

/** No signal at all: what steps that are not agent turns get. */
export const NO_PHRASES: Readonly<PhraseHits> = Object.freeze(
  Object.fromEntries(SIGNALS.map((signal) => [signal, false])) as PhraseHits,
);

/** How many tokens `…` may skip. */
const GAP_TOKENS = 8;

interface Phrase {
  signal: PhraseSignal;
  /** The words, and what stands between each word and the one before it ('' for the first). */
  words: readonly string[];
  separators: readonly string[];
}

const SEPARATOR = /(, | |'|-)/;

/**
 * Phrases indexed by the hashes of their first two words (pairKey), so that a common first word
 * (`i`, with some sixty phrases) is tried only against the phrases its next token can continue;
 * phrases of one word, or whose second word is a gap or a number, by their first word alone.
 */
const BY_FIRST_TWO = new Map<number, Phrase[]>();
const BY_FIRST_WORD = new Map<number, Phrase[]>();
/**
 * One key for two token hashes, kept a small integer (a fast map key); a collision only costs a
 * failed match, as every match is checked against the text.
 */
const pairKey = (first: number, second: number) =>
  (Math.imul(first, 0x9e3779b1) ^ second) & 0x3fffffff;
/** A word a token's hash can stand for: letters, digits and underscores only. */
const TOKEN_WORD = /^[a-z0-9_]+$/;
/**
 * One bit per low 16 bits of a first word's hash: most tokens start no phrase, and a bit test
 * turns them away more cheaply than the map lookup.
 */
const FIRST_WORD_BITS = new Uint8Array(1 << 13);
const LOW_BITS = 0xffff;
for (const signal of SIGNALS) {
  for (const phrase of PHRASE_LISTS[signal]) {
    const parts = phrase.split(SEPARATOR);
    const words = parts.filter((_, index) => index % 2 === 0);
    const separators = ['', ...parts.filter((_, index) => index % 2 === 1)];
    const key = hashWord(words[0]!);
    const second = words[1];
    const [index, at] =
      second !== undefined && TOKEN_WORD.test(second)
        ? [BY_FIRST_TWO, pairKey(key, hashWord(second))]
        : [BY_FIRST_WORD, key];
    index.set(at, [...(index.get(at) ?? []), { signal, words, separators }]);
    FIRST_WORD_BITS[(key & LOW_BITS) >> 3]! |= 1 << (key & 7);
  }
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/** True when token `at` is `word` (`#`: any token starting with a digit). */
function tokenIs(tokens: Tokens, at: number, word: string): boolean {
  const start = tokens.starts[at]!;
  if (word === '#') return isDigit(tokens.lower.charCodeAt(start));
  return tokens.ends[at]! - start === word.length && tokens.lower.startsWith(word, start);
}

/** True when exactly `separator` stands between token `at` and the one before it. */
function separatedBy(tokens: Tokens, at: number, separator: string): boolean {
  const end = tokens.ends[at - 1]!;
  return tokens.starts[at]! - end === separator.length && tokens.lower.startsWith(separator, end);
}

/**
 * True when the phrase's words from `part` on match the tokens from `at` on; after a gap the next
 * word may follow anything.
 */
function matchesFrom(tokens: Tokens, at: number, phrase: Phrase, part: number): boolean {
  if (part === phrase.words.length) return true;
  const word = phrase.words[part]!;
  if (word === '…') {
    for (let skip = 0; skip <= GAP_TOKENS; skip += 1)
      if (matchesFrom(tokens, at + skip, phrase, part + 1)) return true;
    return false;
  }
  return (
    at < tokens.count &&
    tokenIs(tokens, at, word) &&
    (part === 0 ||
      phrase.words[part - 1] === '…' ||
      separatedBy(tokens, at, phrase.separators[part]!)) &&
    matchesFrom(tokens, at + 1, phrase, part + 1)
  );
}

/** Marks the signal of each of `phrases` that matches the tokens from `at` on. */
function markMatches(
  hits: PhraseHits,
  tokens: Tokens,
  at: number,
  phrases: readonly Phrase[] | undefined,
): void {
  if (!phrases) return;
  for (const phrase of phrases)
    if (!hits[phrase.signal] && matchesFrom(tokens, at, phrase, 0)) hits[phrase.signal] = true;
}

/** Every phrase signal in a text, given its tokens (tokens.ts readWords). */
export function findPhrases(tokens: Tokens): PhraseHits {
  const hits = { ...NO_PHRASES };
  const { hashes, count } = tokens;
  for (let index = 0; index < count; index += 1) {
    const hash = hashes[index]!;
    if ((FIRST_WORD_BITS[(hash & LOW_BITS) >> 3]! & (1 << (hash & 7))) === 0) continue;
    markMatches(hits, tokens, index, BY_FIRST_WORD.get(hash));
    if (index + 1 < count)
      markMatches(hits, tokens, index, BY_FIRST_TWO.get(pairKey(hash, hashes[index + 1]!)));
  }
  return hits;
}

/** True when a text holds the signal (any case). */
export function hasPhrase(signal: PhraseSignal, text: string): boolean {
  return findPhrases(readWords(text.toLowerCase(), { tokens: true }).tokens)[signal];
}
