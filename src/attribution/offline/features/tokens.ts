/**
 * Words and tokens of a text, read in one pass over its characters. Both are kept as 30-bit hashes
 * (tokens with their offsets) instead of substrings: attributing reads a few million characters
 * per hundred traces, and allocating and hashing a string per word was most of its cost. A hash
 * collision can only blur a similarity score slightly; phrase matches are checked against the text
 * itself (phrases.ts). A text's distinct words are kept in a WordSet, a table of their hashes.
 */

/**
 * A lower-case text's tokens: runs of letters, digits and underscores, in order. The arrays are
 * buffers shared by every read (most of each is unused; `count` says how much is read), so a
 * text's tokens are valid until the next text's tokens are read: read them at once.
 */
export interface Tokens {
  /** The lower-case text the offsets point into. */
  lower: string;
  count: number;
  /** Each token's hash (see hashWord). */
  hashes: Int32Array;
  starts: Int32Array;
  ends: Int32Array;
}

/** The shared token buffers, grown as longer texts come. */
let buffers = {
  hashes: new Int32Array(1024),
  starts: new Int32Array(1024),
  ends: new Int32Array(1024),
};

/** Buffers that hold every token of a text of `length` characters (at most one per two). */
function buffersFor(length: number): typeof buffers {
  const needed = (length >> 1) + 2;
  if (buffers.hashes.length < needed) {
    const size = 2 * needed;
    buffers = {
      hashes: new Int32Array(size),
      starts: new Int32Array(size),
      ends: new Int32Array(size),
    };
  }
  return buffers;
}

const EMPTY_SLOT = -1;
/** Fibonacci hashing: the top bits of key × 2^32/φ pick a well-spread slot. */
const SPREAD = 0x9e3779b1 | 0;

/**
 * A set of word hashes (non-negative 30-bit integers): an open-addressing table for membership,
 * and the words in the order they were added for iteration. Every step's words are read into one:
 * adding them to V8's `Set` cost nearly as much as the scan that reads the characters.
 */
export class WordSet implements Iterable<number> {
  private count = 0;
  private slots: Int32Array;
  private items: Int32Array;
  private shift: number;

  /** How many words it holds. */
  get size(): number {
    return this.count;
  }

  /** An empty set with room for about `expected` words before it grows. */
  constructor(expected = 8) {
    const bits = Math.max(4, Math.ceil(Math.log2(2 * expected + 2)));
    this.slots = new Int32Array(1 << bits).fill(EMPTY_SLOT);
    this.items = new Int32Array(1 << (bits - 1));
    this.shift = 32 - bits;
  }

  /** True when it holds `word`. */
  has(word: number): boolean {
    const mask = this.slots.length - 1;
    for (let slot = Math.imul(word, SPREAD) >>> this.shift; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === word) return true;
      if (held === EMPTY_SLOT) return false;
    }
  }

  /** Adds `word` (a word it holds already is ignored). */
  add(word: number): this {
    const mask = this.slots.length - 1;
    let slot = Math.imul(word, SPREAD) >>> this.shift;
    for (; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === word) return this;
      if (held === EMPTY_SLOT) break;
    }
    this.slots[slot] = word;
    this.items[this.count] = word;
    this.count += 1;
    // At most half full: probes stay short, and the items always fit.
    if (2 * this.count >= this.slots.length) this.grow();
    return this;
  }

  /** The words, in the order they were added. */
  [Symbol.iterator](): Iterator<number> {
    return this.items.subarray(0, this.count)[Symbol.iterator]();
  }

  /** The word added `index`-th (0 to size − 1): loops over the words need no iterator. */
  wordAt(index: number): number {
    return this.items[index]!;
  }

  /** How many of this set's words `other` holds (a loop over the words, no iterator). */
  sharedWith(other: WordSet): number {
    const { items, size } = this;
    let shared = 0;
    for (let index = 0; index < size; index += 1) if (other.has(items[index]!)) shared += 1;
    return shared;
  }

  private grow(): void {
    const items = this.items.subarray(0, this.count);
    const bits = 33 - this.shift;
    this.slots = new Int32Array(1 << bits).fill(EMPTY_SLOT);
    this.items = new Int32Array(1 << (bits - 1));
    this.shift = 32 - bits;
    const count = this.count;
    this.count = 0;
    for (let index = 0; index < count; index += 1) this.add(items[index]!);
  }
}

/** What one pass over a text gives. */
export interface TextWords {
  /**
   * Hashes of its distinct words: runs of letters and digits of length ≥ 3 (`snake_case` names count
   * as their words).
   */
  words: WordSet;
  /** Its tokens, when asked for. */
  tokens?: Tokens;
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
/** Hashes are cut to 30 bits: small integers in V8, never the -1 of a WordSet's empty slot. */
const MASK = 0x3fffffff;
const MIN_WORD = 3;
const UNDERSCORE = 95;

/** What a character of lower-case text is to the scan: other, word (a letter or digit), or `_`. */
const OTHER = 0;
const WORD_CHARACTER = 1;
const UNDERSCORE_CHARACTER = 2;
/** The class of each ASCII code (one load instead of four comparisons in the scan's loop). */
const CLASSES = new Uint8Array(128);
for (let code = 48; code <= 57; code += 1) CLASSES[code] = WORD_CHARACTER;
for (let code = 97; code <= 122; code += 1) CLASSES[code] = WORD_CHARACTER;
CLASSES[UNDERSCORE] = UNDERSCORE_CHARACTER;

const classOf = (code: number) => (code < 128 ? CLASSES[code]! : OTHER);

/** True for a character of a token of lower-case text: a letter, a digit or an underscore. */
export const isTokenCode = (code: number) => classOf(code) !== OTHER;

/** The hash of one lower-case word or token, as the scan computes it. */
export function hashWord(word: string): number {
  let hash = FNV_OFFSET;
  for (let index = 0; index < word.length; index += 1)
    hash = Math.imul(hash ^ word.charCodeAt(index), FNV_PRIME);
  return hash & MASK;
}

/** What to read besides the words. */
export interface ReadOptions {
  /** Also return the tokens. */
  tokens?: boolean;
  /**
   * Take words only from the first `head` and last `tail` characters of a text longer than both
   * together (as if the two ends were joined by a space).
   */
  wordWindow?: { head: number; tail: number };
}

/** Words (and, when asked, tokens) of a lower-case text, in one pass over its characters. */
export function readWords(
  lower: string,
  options: ReadOptions & { tokens: true },
): Required<TextWords>;
export function readWords(lower: string, options?: ReadOptions): TextWords;
export function readWords(lower: string, options: ReadOptions = {}): TextWords {
  const { length } = lower;
  const window = options.wordWindow;
  const windowed = window !== undefined && length > window.head + window.tail;
  // Words are not read from `cut` up to `resume`.
  const cut = windowed ? window.head : length + 1;
  const resume = windowed ? length - window.tail : length + 1;
  // About one distinct word in eight characters read.
  const expected = (windowed ? window.head + window.tail : length) >> 3;
  if (!options.tokens) {
    // Words only: the two ends are read and the middle skipped.
    const words = new WordSet(expected);
    addWords(lower, 0, Math.min(cut, length), words);
    if (resume < length) addWords(lower, resume, length, words);
    return { words };
  }
  const words = new WordSet(expected);
  const tokens: Tokens = { lower, count: 0, ...buffersFor(length) };
  const bounds = { cut, resume };
  let tokenStart = -1;
  let tokenHash = FNV_OFFSET;
  let underscore = false;
  // The loop stops at the last character and the last token is closed after it: a sentinel
  // character past the end cost a quarter of the loop's time.
  for (let index = 0; index < length; index += 1) {
    const code = lower.charCodeAt(index);
    const kind = classOf(code);
    if (kind !== OTHER) {
      if (tokenStart < 0) {
        tokenStart = index;
        tokenHash = FNV_OFFSET;
        underscore = false;
      }
      tokenHash = Math.imul(tokenHash ^ code, FNV_PRIME);
      if (kind === UNDERSCORE_CHARACTER) underscore = true;
    } else if (tokenStart >= 0) {
      closeToken(tokens, words, bounds, tokenStart, index, tokenHash & MASK, underscore);
      tokenStart = -1;
    }
  }
  if (tokenStart >= 0)
    closeToken(tokens, words, bounds, tokenStart, length, tokenHash & MASK, underscore);
  return { words, tokens };
}

/**
 * Records the token from `start` up to `end` and adds its words (none are read from `bounds.cut`
 * up to `bounds.resume`). Words never cross tokens. A token inside the word window without
 * underscores is one word with the token's hash; one with underscores, or one the window cuts, is
 * read for its words.
 */
function closeToken(
  tokens: Tokens,
  words: WordSet,
  bounds: { cut: number; resume: number },
  start: number,
  end: number,
  hash: number,
  underscore: boolean,
): void {
  const at = tokens.count;
  tokens.hashes[at] = hash;
  tokens.starts[at] = start;
  tokens.ends[at] = end;
  tokens.count = at + 1;
  const { cut, resume } = bounds;
  if (!underscore && (end <= cut || start >= resume)) {
    if (end - start >= MIN_WORD) words.add(hash);
  } else {
    if (start < cut) addWords(tokens.lower, start, Math.min(end, cut), words);
    if (end > resume) addWords(tokens.lower, Math.max(start, resume), end, words);
  }
}

/** Adds the words of `lower` from `from` up to `to` (a word is cut where the range ends). */
function addWords(lower: string, from: number, to: number, words: WordSet): void {
  let wordHash = FNV_OFFSET;
  let wordLength = 0;
  for (let index = from; index < to; index += 1) {
    const code = lower.charCodeAt(index);
    if (classOf(code) === WORD_CHARACTER) {
      wordHash = Math.imul(wordHash ^ code, FNV_PRIME);
      wordLength += 1;
    } else if (wordLength > 0) {
      if (wordLength >= MIN_WORD) words.add(wordHash & MASK);
      wordHash = FNV_OFFSET;
      wordLength = 0;
    }
  }
  if (wordLength >= MIN_WORD) words.add(wordHash & MASK);
}

/** The word hashes of any text (lower-cased first). */
export function wordsIn(text: string): WordSet {
  return readWords(text.toLowerCase()).words;
}
