import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_NAME_LENGTH, cutName, trimEndOf, trimStartOf } from './text-limits.js';

describe('text limits', () => {
  it('cuts a long name to the limit, shows the cut, and cutting again changes nothing', () => {
    assert.equal(cutName('Planner'), 'Planner');
    const cut = cutName('x'.repeat(5_000_000));
    assert.ok(cut.length <= MAX_NAME_LENGTH);
    assert.match(cut, /…\[\+\d+ characters\]$/);
    assert.equal(cutName(cut), cut);
  });

  it('trims characters at either end in one pass, on a megabyte of them', () => {
    assert.equal(trimEndOf('http://host/v1///', '/'), 'http://host/v1');
    assert.equal(trimStartOf('**  bold', '* '), 'bold');
    const slashes = '/'.repeat(1_000_000);
    assert.equal(trimEndOf(`${slashes}x`, '/'), `${slashes}x`);
    assert.equal(trimEndOf(slashes, '/'), '');
  });
});
