import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stripVTControlCharacters as plain } from 'node:util';
import type { Attribution } from '../attribution/method.js';
import type { Trace, TraceLabels } from '../trace/model.js';
import { renderAttribution, renderBatchSummary } from './render.js';

const answer = (agent: string | null, extra: Partial<Attribution> = {}): Attribution => ({
  agent,
  step: agent === null ? null : 0,
  reason: '',
  method: 'all-at-once',
  usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
  ...extra,
});

describe('the summary of several runs', () => {
  it('is left out for a single run', () => {
    assert.equal(renderBatchSummary([answer('Coder')]), undefined);
  });

  it('tallies the named agents, most often first, and the runs without an answer', () => {
    const summary = renderBatchSummary([
      answer('Planner'),
      answer('Coder', { familiar: false }),
      answer(null),
      answer('Coder'),
    ]);
    assert.equal(
      plain(summary ?? ''),
      [
        '4 runs',
        '  named   Coder 2, Planner 1, no answer 1',
        '  note    1 of them looks unlike the runs the offline model learned from: read those answers as guesses',
      ].join('\n'),
    );
  });

  it('adds up what the LLM calls spent, with a cost only where every run has one', () => {
    const spent = (costUsd?: number) =>
      answer('Coder', {
        usage: { calls: 2, inputTokens: 1000, outputTokens: 50, ...(costUsd ? { costUsd } : {}) },
      });
    const strip = (text?: string) =>
      plain(text ?? '')
        .split('\n')
        .at(-1);
    assert.equal(
      strip(renderBatchSummary([spent(0.01), spent(0.02)])),
      '  spent   4 calls, 2000 in / 100 out tokens, ~$0.0300',
    );
    assert.equal(
      strip(renderBatchSummary([spent(0.01), spent()])),
      '  spent   4 calls, 2000 in / 100 out tokens',
    );
  });
});

describe("the trace's own label", () => {
  const trace = (labels?: TraceLabels): Trace => ({
    id: 'run',
    format: 'messages',
    outcome: 'failure',
    steps: [{ index: 0, agent: 'Coder', speaker: 'Coder', role: 'agent', content: 'x = 1' }],
    agents: [{ name: 'Coder', role: 'agent', steps: 1 }],
    metadata: {},
    ...(labels ? { labels } : {}),
  });
  const labelLine = (labels?: TraceLabels) =>
    plain(renderAttribution('run.json', trace(labels), answer('Coder')))
      .split('\n')
      .find((line) => line.startsWith('  label'));

  it('names the agent and step, or the agents alone where no step is labelled', () => {
    assert.equal(labelLine({ agent: 'Coder', step: 0 }), '  label   Coder at step 0');
    assert.equal(labelLine({ agent: 'Coder' }), '  label   Coder');
    assert.equal(
      labelLine({ agent: 'Critic', agents: ['Critic', 'Judge'] }),
      '  label   Critic or Judge',
    );
    assert.equal(labelLine({ step: 0 }), '  label   step 0');
    assert.equal(labelLine(), undefined);
  });
});
