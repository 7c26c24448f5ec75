import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wordsFrom } from './divergence.js';

test('a difference is shown from the word it starts in, cut with … on each side', () => {
  const text = 'Current time: 04:46. Find the unit price of the item asked about.';
  assert.equal(
    wordsFrom(text, text.indexOf('46')),
    '"…04:46. Find the unit price of the item asked about."',
  );
  assert.equal(wordsFrom('Task: a b c', 0), '"Task: a b c"');
  assert.equal(wordsFrom('', 0), '(nothing)');
  assert.equal(wordsFrom('same', 4), '(nothing more)');
  const long = Array.from({ length: 30 }, (_, index) => `w${index}`).join(' ');
  assert.equal(wordsFrom(long, 0), `"${long.split(' ').slice(0, 12).join(' ')}…"`);
});
