/** An unfamiliar run's statement: the held-out low end, moved by the signal where it held. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unseenStatement, type HeldOutItem } from './unseen-statement.js';

/** `runs` predictions of `system` with the signal `clear`, the first `right` of them right. */
const items = (system: string, clear: boolean, runs: number, right: number): HeldOutItem[] =>
  Array.from({ length: runs }, (_, index) => ({ system, clear, correct: index < right }));

describe('unseenStatement', () => {
  it('starts at the lowest hit rate, the measured unseen one included, and keeps the range', () => {
    const statement = unseenStatement(
      [...items('a', false, 20, 12), ...items('b', false, 20, 18)],
      0.17,
    )!;
    // Neither system has ten runs with the signal: no shift up; without it, none down.
    assert.deepEqual(statement.byEvidence, [0.17, 0.17]);
    assert.deepEqual(statement.range, [0.17, 0.9]);
  });

  it('moves the figure by the least the signal moved any system, never above what it supports', () => {
    // a: 10/10 right with the signal, 5/10 without (rate 0.75); b: 9/10 and 7/10 (0.8).
    const statement = unseenStatement(
      [
        ...items('a', true, 10, 10),
        ...items('a', false, 10, 5),
        ...items('b', true, 10, 9),
        ...items('b', false, 10, 7),
      ],
      0.17,
    )!;
    // Up by the smaller lift (b: +0.1), down by the larger fall (a: -0.25), at least 1%.
    assert.deepEqual(statement.byEvidence, [0.01, 0.27]);
    assert.deepEqual(statement.range, [0.17, 0.8]);
  });

  it('says nothing without a system of ten runs', () => {
    assert.equal(unseenStatement(items('a', true, 9, 9), 0.17), undefined);
  });
});
