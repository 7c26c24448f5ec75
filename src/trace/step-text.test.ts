import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stepText } from './step-text.js';

describe('stepText', () => {
  const call = { name: 'cancel_order', arguments: '{"order_id":"#W99"}' };

  it('adds the tool calls a speaking turn does not show', () => {
    assert.equal(
      stepText({ content: 'Cancelling it now.', toolCalls: [call] }),
      'Cancelling it now.\ncancel_order({"order_id":"#W99"})',
    );
  });

  it('reads a turn that only calls a tool as its calls', () => {
    assert.equal(
      stepText({ content: '  ', toolCalls: [call] }),
      'cancel_order({"order_id":"#W99"})',
    );
  });

  it('leaves content that already shows the call (by name or by arguments) as it is', () => {
    for (const content of ['cancel_order( #W99 )', 'Arguments: {"order_id":"#W99"}', 'plain'])
      assert.equal(
        stepText({ content, ...(content === 'plain' ? {} : { toolCalls: [call] }) }),
        content,
      );
  });
});
