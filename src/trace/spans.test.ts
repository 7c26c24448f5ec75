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

  it('reads a container as structure: its error goes with the failing child', () => {
    const steps = stepsFromSpans([
      span('run', 1, { kind: 'agent', name: 'searcher', content: 'done', error: 'run failed' }),
      span('step', 2, {
        kind: 'other',
        parentId: 'run',
        error: 'AgentToolExecutionError: page_down',
      }),
      span('model', 3, { kind: 'llm', parentId: 'step', content: 'page_down({})' }),
      span('tool', 4, {
        kind: 'tool',
        name: 'page_down',
        parentId: 'step',
        error: 'IndexError',
        call: { name: 'page_down', arguments: '{}' },
      }),
    ]);
    assert.deepEqual(said(steps), [
      'searcher: page_down({})',
      'page_down: [error] IndexError\n[error] AgentToolExecutionError: page_down\n[error] run failed',
    ]);
    assert.equal(steps[1]!.error, 'IndexError');
  });

  it("puts a container's error after its children when none of them failed", () => {
    const steps = stepsFromSpans([
      span('run', 1, { kind: 'agent', name: 'coder' }),
      span('step-1', 2, { kind: 'other', parentId: 'run', error: 'InterpreterError', end: 5n }),
      span('model-1', 3, { kind: 'llm', parentId: 'step-1', content: 'open_file(x)' }),
      span('step-2', 6, { kind: 'other', parentId: 'run' }),
      span('model-2', 7, { kind: 'llm', parentId: 'step-2', content: 'fixed' }),
    ]);
    assert.deepEqual(said(steps), [
      'coder: open_file(x)',
      'coder: [error] InterpreterError',
      'coder: fixed',
    ]);
    assert.equal(steps[1]!.role, 'system');
  });

  it('reads siblings in start order, a span exported twice once, and a parent cycle whole', () => {
    const model = span('model', 3, { kind: 'llm', parentId: 'run', content: 'second' });
    const steps = stepsFromSpans([
      span('run', 1, { kind: 'agent', name: 'solo' }),
      model,
      span('early', 2, { kind: 'llm', parentId: 'run', content: 'first' }),
      { ...model, content: 'again' },
      span('a', 10, { kind: 'llm', parentId: 'b', content: 'a' }),
      span('b', 11, { kind: 'tool', name: 'b', parentId: 'a', content: 'b' }),
    ]);
    assert.deepEqual(said(steps), ['solo: first', 'solo: second', 'a: a', 'b: b']);
  });

  it('walks a deep tree without recursing', () => {
    const chain = Array.from({ length: 20_000 }, (_, index) =>
      span(`s${index}`, index, index === 0 ? {} : { parentId: `s${index - 1}` }),
    );
    chain.push(span('leaf', 20_000, { kind: 'tool', name: 'leaf', parentId: 's19999' }));
    assert.deepEqual(said(stepsFromSpans(chain)), ['leaf: ']);
  });
});
