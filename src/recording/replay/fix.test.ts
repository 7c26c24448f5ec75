import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Trace } from '../../trace/model.js';
import { fixPrompt, parseFix } from './fix.js';

test('--fix takes the JSON forms replay prints and documents', () => {
  const call = { name: 'lookup_price', arguments: '{"item":"widget"}' };
  assert.deepEqual(parseFix('{"content":"X","toolCalls":[]}'), { text: 'X' });
  assert.deepEqual(parseFix('{"content":"X"}'), { text: 'X' });
  // The fix as replay prints it in its result.
  assert.deepEqual(parseFix('{"text":"X"}'), { text: 'X' });
  assert.deepEqual(parseFix(JSON.stringify({ text: '', toolCalls: [call] })), {
    text: '',
    toolCalls: [call],
  });
  assert.deepEqual(
    parseFix(
      JSON.stringify({ toolCalls: [{ name: 'lookup_price', arguments: { item: 'widget' } }] }),
    ),
    { text: '', toolCalls: [call] },
    'arguments given as an object',
  );
  // Text that merely looks like JSON, or JSON of another shape, is what the step says.
  assert.deepEqual(parseFix('{"answer": 41.5}'), { text: '{"answer": 41.5}' });
  assert.deepEqual(parseFix('{not json'), { text: '{not json' });
  assert.deepEqual(parseFix('The unit price is 12.50 USD.'), {
    text: 'The unit price is 12.50 USD.',
  });
  assert.throws(() => parseFix('  '), /--fix is empty/);
  assert.throws(() => parseFix('{"content":"","toolCalls":[]}'), /neither content nor tool calls/);
});

test("a fix that writes a tool-only step's calls out as its text keeps only the calls", () => {
  const call = { name: 'lookup_price', arguments: '{"item":"widget"}' };
  assert.deepEqual(
    parseFix(JSON.stringify({ content: 'lookup_price({"item":"widget"})', toolCalls: [call] })),
    { text: '', toolCalls: [call] },
  );
});

test("the fix prompt shows a tool-only step's calls once", () => {
  const calls = [{ name: 'lookup_price', arguments: '{"item":"widget"}' }];
  const trace: Trace = {
    id: 't',
    format: 'proxy',
    outcome: 'failure',
    agents: [],
    question: 'How much do 3 widgets cost?',
    steps: [
      { index: 0, agent: 'user', speaker: 'user', role: 'human', content: 'How much?' },
      {
        index: 1,
        agent: 'researcher',
        speaker: 'researcher',
        role: 'agent',
        content: 'lookup_price({"item":"widget"})',
        toolCalls: calls,
      },
    ],
    metadata: {},
  };
  const prompt = fixPrompt(trace, 1, 'the researcher looked up the wrong item');
  assert.equal(prompt.split('lookup_price(').length - 1, 1, prompt);
  assert.match(
    prompt,
    /It said:\n\(nothing\)\nIt called tools:\nlookup_price\(\{"item":"widget"\}\)/,
  );
});
