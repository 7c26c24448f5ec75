/** Prices: exact names and dated versions only, so no model is charged at a neighbour's rate. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { priceOf } from './prices.js';

const price = (model: string, overrides = {}) => {
  const colon = model.indexOf(':');
  return priceOf({ provider: model.slice(0, colon), model: model.slice(colon + 1) }, overrides);
};

describe('prices', () => {
  it('prices a model by its own name or a dated version of it', () => {
    assert.deepEqual(price('openai:gpt-4o'), { input: 2.5, output: 10 });
    assert.deepEqual(price('openai:gpt-4o-2024-08-06'), { input: 2.5, output: 10 });
    assert.deepEqual(price('openai:gpt-4.1-nano'), { input: 0.1, output: 0.4 });
    assert.deepEqual(price('anthropic:claude-sonnet-4-20250514'), { input: 3, output: 15 });
  });

  it('leaves a typo or an unlisted relative unpriced rather than guessing', () => {
    assert.equal(price('openai:gpt-4oo'), undefined);
    assert.equal(price('openai:gpt-4o-search-preview'), undefined);
  });

  it('prices local servers at zero and honours overrides first', () => {
    assert.deepEqual(price('ollama:llama3.1:8b'), { input: 0, output: 0 });
    assert.deepEqual(price('openai:gpt-4o', { 'openai:gpt-4o': { input: 1, output: 2 } }), {
      input: 1,
      output: 2,
    });
  });
});
