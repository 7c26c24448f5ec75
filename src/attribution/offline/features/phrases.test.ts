import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findPhrases, hasPhrase, type PhraseSignal } from './phrases.js';
import { hashWord, readWords, WordSet, wordsIn } from './tokens.js';

const signalsIn = (text: string) => {
  const hits = findPhrases(readWords(text.toLowerCase(), { tokens: true }).tokens);
  return (Object.keys(hits) as PhraseSignal[]).filter((signal) => hits[signal]).sort();
};

describe('words and tokens', () => {
  it('reads words of three or more letters or digits, splitting snake_case names', () => {
    assert.deepEqual(
      new Set(wordsIn('The final_answer is 42, not 1234!')),
      new Set(['the', 'final', 'answer', 'not', '1234'].map(hashWord)),
    );
  });

  it('keeps underscores inside tokens and records where each token stands', () => {
    const { tokens } = readWords('call web_search(x) now', { tokens: true });
    assert.deepEqual(
      Array.from({ length: tokens.count }, (_, index) =>
        tokens.lower.slice(tokens.starts[index], tokens.ends[index]),
      ),
      ['call', 'web_search', 'x', 'now'],
    );
  });

  it('reads every token of a long text, then of a short one (the buffers are reused)', () => {
    const long = readWords(Array.from({ length: 3_000 }, (_, index) => `w${index}`).join(' '), {
      tokens: true,
    }).tokens;
    assert.equal(long.count, 3_000);
    assert.equal(long.lower.slice(long.starts[2_999], long.ends[2_999]), 'w2999');
    const short = readWords('one two', { tokens: true }).tokens;
    assert.equal(short.count, 2);
    assert.equal(short.lower.slice(short.starts[1], short.ends[1]), 'two');
  });

  it('reads the same words with tokens as without, at underscores and window edges too', () => {
    // A fixed pseudo-random sequence over letters, digits, underscores and separators.
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff);
    const alphabet = 'ab_1 .';
    for (let count = 0; count < 5_000; count += 1) {
      let text = '';
      for (let length = next() % 30; length > 0; length -= 1)
        text += alphabet[next() % alphabet.length];
      for (const wordWindow of [undefined, { head: 5, tail: 4 }, { head: 1, tail: 1 }])
        assert.deepEqual(
          [...readWords(text, { tokens: true, wordWindow }).words].sort(),
          [...readWords(text, { wordWindow }).words].sort(),
          JSON.stringify({ text, wordWindow }),
        );
    }
  });

  it('takes words only from the window ends of a long text, cutting at the window edges', () => {
    const text = `${'a'.repeat(8)}headword ${'x'.repeat(50)} middleword ${'y'.repeat(50)} tailword`;
    const { words } = readWords(text, { wordWindow: { head: 16, tail: 8 } });
    assert.deepEqual(new Set(words), new Set(['aaaaaaaaheadword', 'tailword'].map(hashWord)));
  });

  it('keeps word hashes in a set that grows, ignores repeats and lists them in order added', () => {
    const words = new WordSet(2);
    const reference = new Set<number>();
    // A fixed pseudo-random sequence of 30-bit hashes, each added twice.
    let seed = 5;
    for (let count = 0; count < 3_000; count += 1) {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x3fffffff;
      words.add(seed).add(seed);
      reference.add(seed);
    }
    assert.equal(words.size, reference.size);
    assert.deepEqual([...words], [...reference]);
    assert.ok([...reference].every((word) => words.has(word)));
    const absent = [0, 1, 7, 0x3fffffff].filter((word) => !reference.has(word));
    assert.ok(absent.length > 0 && absent.every((word) => !words.has(word)));
    const some = new WordSet().add([...reference][10]!).add(absent[0]!);
    assert.equal(some.sharedWith(words), 1);
  });
});

describe('phrase signals', () => {
  it('finds every signal in one pass', () => {
    assert.deepEqual(
      signalsIn(
        "Let's say the value is approximately 12. I can't access the site. Thus the answer is 12.",
      ),
      ['conclusion', 'hedging', 'inability'],
    );
    assert.deepEqual(signalsIn('Next, we will check step 3 of the plan.'), ['planning']);
    assert.deepEqual(signalsIn('I have visited the page and clicked the link'), [
      'unsupported',
      'webAction',
    ]);
  });

  it('requires exactly the written separator between words', () => {
    assert.ok(hasPhrase('inability', "I can't open it"));
    assert.ok(hasPhrase('inability', 'I cant open it'));
    assert.ok(!hasPhrase('inability', 'I can t open it'));
    assert.ok(hasPhrase('hedging', 'the figures are made-up'));
    assert.ok(!hasPhrase('planning', 'step:\n1. load the file'));
    assert.ok(hasPhrase('planning', 'step 1: load the file'));
  });

  it('matches whole tokens only', () => {
    assert.ok(!hasPhrase('planning', 'the planet is far'));
    assert.ok(!hasPhrase('conclusion', 'print(final_answer)'));
    assert.ok(hasPhrase('webAction', 'calling web_search now'));
    assert.ok(!hasPhrase('webAction', 'calling perform_web_search now'));
  });

  it('bridges a gap of a few words', () => {
    assert.ok(hasPhrase('unsupported', 'I will watch the whole video and report the count'));
    assert.ok(
      !hasPhrase(
        'unsupported',
        'I will watch one two three four five six seven eight nine ten and report',
      ),
    );
  });
});
