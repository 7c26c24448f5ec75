import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Trace } from '../../trace/model.js';
import { pricedAs, RerunBudget } from './budget.js';

/** A recorded run whose model calls each used `tokens` input and output tokens of `model`. */
function recorded(id: string, model: string, calls: number, tokens = 1_000_000): Trace {
  return {
    id,
    format: 'canonical',
    outcome: 'unknown',
    agents: [],
    metadata: {},
    steps: Array.from({ length: calls }, (_, index) => ({
      index,
      agent: 'Researcher',
      speaker: 'Researcher',
      role: 'agent' as const,
      content: 'a reply',
      span: { id: `call-${index}`, model, inputTokens: tokens, outputTokens: tokens },
    })),
  };
}

const ask = (budget: RerunBudget, counter = { calls: 0, refused: false }) =>
  budget.responder(counter).answer({} as never);

describe('rerun budget', () => {
  it('prices Claude and Gemini by their names, other models as OpenAI', () => {
    assert.deepEqual(pricedAs('claude-sonnet-4-5'), {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    assert.equal(pricedAs('gemini-2.5-pro').provider, 'google');
    assert.equal(pricedAs('gpt-4o-2024-08-06').provider, 'openai');
  });

  it('refuses calls once the recorded replies cost the most it may spend', () => {
    const budget = new RerunBudget({ maxCostUsd: 20 });
    assert.equal(ask(budget), undefined);
    budget.noteRun(recorded('run-1', 'gpt-4o', 1)); // 2.5 + 10 dollars
    assert.equal(budget.costUsd, 12.5);
    assert.equal(ask(budget), undefined);
    budget.noteRun(recorded('run-1', 'gpt-4o', 2)); // the same run, grown: 25 dollars
    const counter = { calls: 0, refused: false };
    const refused = ask(budget, counter);
    assert.equal(refused?.kind, 'refuse');
    assert.match(
      (refused as { message: string }).message,
      /the cost budget of \$20 is spent \(\$25\.0000 estimated\)/,
    );
    assert.deepEqual([budget.spent, counter.refused, budget.calls], ['cost', true, 2]);
  });

  it('refuses calls past the call bound, whichever bound comes first', () => {
    const budget = new RerunBudget({ maxCalls: 1, maxCostUsd: 1000 });
    assert.equal(ask(budget), undefined);
    assert.equal(ask(budget)?.kind, 'refuse');
    assert.equal(budget.spent, 'calls');
  });

  it('counts the calls whose upstream reported no tokens, as their cost is unknown', () => {
    const budget = new RerunBudget({ maxCostUsd: 1 });
    const run = recorded('run-1', 'gpt-4o', 2);
    const unmetered = run.steps.map((step) => ({
      ...step,
      span: { id: step.span!.id, model: 'gpt-4o' },
    }));
    budget.noteRun({ ...run, steps: unmetered });
    assert.deepEqual([budget.costUsd, budget.unmetered], [0, 2]);
  });

  it('counts an unpriced model as free and names it; a price file prices it', () => {
    const free = new RerunBudget({ maxCostUsd: 1 });
    free.noteRun(recorded('run-1', 'my-local-model', 3));
    assert.deepEqual([free.costUsd, [...free.unpriced]], [0, ['my-local-model']]);
    const priced = new RerunBudget({
      prices: { 'openai:my-local-model': { input: 1, output: 1 } },
    });
    priced.noteRun(recorded('run-1', 'my-local-model', 3));
    assert.deepEqual([priced.costUsd, priced.unpriced.size], [6, 0]);
  });
});
