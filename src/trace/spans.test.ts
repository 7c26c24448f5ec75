import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stepsFromSpans, type NeutralSpan } from './spans.js';

const span = (id: string, start: number, rest: Partial<NeutralSpan>): NeutralSpan => ({
  id,
  start: BigInt(start),
  kind: 'other',
  name: id,
  content: '',
  ...rest,
});
const lookup = (parentId: string, start: number, content = '') =>
  span(`lookup-${start}`, start, {
    kind: 'tool',
    name: 'lookup',
    parentId,
    content,
    call: { name: 'lookup', arguments: `{"at": ${start}}` },
  });
const said = (steps: ReturnType<typeof stepsFromSpans>) =>
  steps.map((step) => `${step.speaker}: ${step.content}`);

describe('steps from spans', () => {
  it("gives a tool call to the agent that made it where that agent's model call is missing", () => {
    const steps = stepsFromSpans([
      span('triage', 1, { kind: 'agent', name: 'Triage' }),
      span('model', 2, { kind: 'llm', parentId: 'triage', content: 'transfer_to_refunds({})' }),
      span('handoff', 3, { kind: 'handoff', name: 'Triage', target: 'Refunds' }),
      span('refunds', 4, { kind: 'agent', name: 'Refunds' }),
      lookup('refunds', 5, 'timeout'),
    ]);
    assert.deepEqual(said(steps), [
      'Triage: transfer_to_refunds({})',
      'Triage: handoff to Refunds',
      'Refunds: lookup({"at": 5})',
      'lookup: timeout',
    ]);
    assert.deepEqual(steps[2]!.toolCalls, [{ name: 'lookup', arguments: '{"at": 5}' }]);
    assert.equal(steps[2]!.role, 'agent');
  });

  it('adds no step where the agent spoke last, nor for a tool without a known call or agent', () => {
    const steps = stepsFromSpans([
      span('refunds', 1, { kind: 'agent', name: 'Refunds' }),
      span('model', 2, { kind: 'llm', parentId: 'refunds', content: 'Looking both up.' }),
      lookup('refunds', 3, 'one'),
      lookup('refunds', 4, 'two'),
      span('bare', 5, { kind: 'tool', name: 'bare', parentId: 'refunds', content: 'three' }),
      lookup('nowhere', 6, 'four'),
    ]);
    assert.deepEqual(said(steps), [
      'Refunds: Looking both up.',
      'lookup: one',
      'lookup: two',
      'bare: three',
      'lookup: four',
    ]);
  });
});
