import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeControls, terminalSafe } from './terminal-text.js';

describe('terminal text', () => {
  it('shows escape sequences and bidirectional overrides escaped, keeping line breaks', () => {
    assert.equal(
      escapeControls('Evil\u001b]0;pwned\u0007\u001b[2J\u202eok\nnext\tcell'),
      'Evil\\x1b]0;pwned\\x07\\x1b[2J\\u202eok\nnext\tcell',
    );
  });

  it('escapes every string of a value, and returns a clean value itself', () => {
    const clean = { agent: 'Planner', steps: [{ content: 'hi' }] };
    assert.equal(terminalSafe(clean), clean);
    const dirty = { agent: 'A\u001b[31m', steps: [{ content: 'x' }, { content: '\u009b2J' }] };
    const shown = terminalSafe(dirty);
    assert.deepEqual(shown, {
      agent: 'A\\x1b[31m',
      steps: [{ content: 'x' }, { content: '\\x9b2J' }],
    });
    assert.equal(shown.steps[0], dirty.steps[0], 'what needs nothing is shared, not copied');
    assert.equal(dirty.agent, 'A\u001b[31m', 'the value given is not changed');
  });
});
