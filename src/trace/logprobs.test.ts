import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importTraceText } from './load.js';
import { readLogprobs, summariseLogprobs } from './logprobs.js';

const tokens = [
  { token: 'The', logprob: -0.1 },
  { token: ' total', logprob: -0.3 },
  { token: ' is', logprob: -0.05 },
  { token: ' 41', logprob: -2.5 },
];

describe('log probabilities', () => {
  it('summarises tokens: mean, minimum and the least likely tokens with their positions', () => {
    assert.deepEqual(summariseLogprobs(tokens), {
      mean: -0.7375,
      min: -2.5,
      tokens: 4,
      lowest: [
        { token: ' 41', logprob: -2.5, position: 3 },
        { token: ' total', logprob: -0.3, position: 1 },
        { token: 'The', logprob: -0.1, position: 0 },
        { token: ' is', logprob: -0.05, position: 2 },
      ],
    });
    assert.equal(summariseLogprobs([]), undefined);
  });

  it('reads Chat Completions, Responses, legacy Completions and JSON text alike', () => {
    const expected = summariseLogprobs(tokens);
    assert.deepEqual(readLogprobs({ content: tokens, refusal: null }), expected);
    assert.deepEqual(readLogprobs(tokens), expected);
    assert.deepEqual(readLogprobs(JSON.stringify({ content: tokens })), expected);
    assert.deepEqual(
      readLogprobs({
        tokens: tokens.map((token) => token.token),
        token_logprobs: tokens.map((token) => token.logprob),
      }),
      expected,
    );
  });

  it('keeps positions past a missing value in legacy Completions', () => {
    const summary = readLogprobs({ tokens: ['a', 'b', 'c'], token_logprobs: [null, -1, -0.5] });
    assert.equal(summary?.tokens, 2);
    assert.deepEqual(summary?.lowest[0], { token: 'b', logprob: -1, position: 1 });
  });

  it('reads nothing, without an error, from shapes it does not know', () => {
    for (const value of [null, undefined, 'not json', 3, {}, { content: null }, [{ token: 'a' }]])
      assert.equal(readLogprobs(value), undefined, JSON.stringify(value));
  });

  it('reads a step summary back from canonical JSON, and a step without one stays without', async () => {
    const summary = summariseLogprobs(tokens)!;
    const canonical = {
      id: 'run',
      format: 'messages',
      outcome: 'failure',
      agents: [],
      metadata: {},
      steps: [
        { index: 0, agent: 'user', speaker: 'user', role: 'human', content: 'Count.' },
        {
          index: 1,
          agent: 'Counter',
          speaker: 'Counter',
          role: 'agent',
          content: 'The total is 41',
          logprobs: summary,
        },
      ],
    };
    const [trace] = await importTraceText(JSON.stringify(canonical), 'run.json');
    assert.equal(trace!.format, 'messages');
    assert.equal('logprobs' in trace!.steps[0]!, false);
    assert.deepEqual(trace!.steps[1]!.logprobs, summary);
  });
});
