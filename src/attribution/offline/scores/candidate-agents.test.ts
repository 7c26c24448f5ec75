/** Only agents are candidates: tools and placeholders are never listed or named (issue 53). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../../../trace/build-trace.js';
import { attributeWithModel, loadOfflineModel } from '../attribute/attributor.js';
import { candidateAgents, isPlaceholderAgent } from './candidate-agents.js';

/** A smolagents-like run: one agent (`manager`), a tool (`final_answer`), a span outside any agent. */
const oneAgentRun = () =>
  buildTrace({
    id: 'one-agent',
    format: 'test',
    question: 'What is the population of the capital of France, in millions?',
    steps: [
      { speaker: 'user', content: 'What is the population of the capital of France, in millions?' },
      {
        speaker: 'manager',
        content: 'The capital of France is Lyon, so I will look up the population of Lyon.',
      },
      { speaker: '(no agent)', content: 'Calling the model for the next step with 1,420 tokens.' },
      {
        speaker: 'manager',
        content: 'Lyon has about 0.52 million inhabitants. I will give that as the answer.',
      },
      { speaker: 'final_answer', role: 'tool', content: '0.52' },
    ],
  });

describe('candidate agents', () => {
  it('tells placeholders from agent names', () => {
    assert.ok(isPlaceholderAgent('(no agent)'));
    assert.ok(isPlaceholderAgent(' (unknown) '));
    assert.ok(isPlaceholderAgent(''));
    assert.ok(!isPlaceholderAgent('manager'));
    assert.ok(!isPlaceholderAgent('Orchestrator (thought)'));
  });

  it('drops tools and placeholders and renormalises over the agents left', () => {
    const trace = oneAgentRun();
    const kept = candidateAgents(trace, [
      { agent: '(no agent)', probability: 0.5 },
      { agent: 'manager', probability: 0.3 },
      { agent: 'final_answer', probability: 0.2 },
    ]);
    assert.deepEqual(kept, [{ agent: 'manager', probability: 1 }]);
    // A run of tools and placeholders only keeps what it has.
    assert.equal(candidateAgents(trace, [{ agent: 'final_answer', probability: 1 }]).length, 1);
  });

  it('names the one agent of a run beside its user, tools and placeholders, at the figure for that case', () => {
    const result = attributeWithModel(oneAgentRun(), loadOfflineModel());
    assert.equal(result.agent, 'manager');
    assert.deepEqual(
      result.agentCandidates?.map((entry) => entry.agent),
      ['manager'],
      'no tool or placeholder among the agents',
    );
    // One candidate agent: chance is 1 and nothing is stated below chance.
    assert.equal(result.agentConfidence, 1);
    for (const candidate of result.candidates ?? []) assert.equal(candidate.agent, 'manager');
  });
});
