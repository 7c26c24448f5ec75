import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentNames } from './openinference-agents.js';
import type { FlatSpan } from './openinference-spans.js';

const span = (
  spanId: string,
  start: number,
  kind: string,
  attributes: Record<string, unknown> = {},
  parentId?: string,
): FlatSpan => ({
  traceId: 't',
  spanId,
  ...(parentId ? { parentId } : {}),
  // Span names are never read for agents: each is a class's method here, as smolagents names them.
  name: kind === 'AGENT' ? 'ToolCallingAgent.run' : 'OpenAIServerModel.generate',
  start: BigInt(start),
  end: 0n,
  attributes: { 'openinference.span.kind': kind, ...attributes },
});
const team = {
  'smolagents.managed_agents.0.name': 'search_agent',
  'smolagents.managed_agents.1.name': 'math_agent',
};
const callsTool = (name: string) => ({
  'llm.model_name': 'o3-mini',
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': name,
});

describe('OpenInference agent names', () => {
  it('names a managed run by the team member its manager called last', () => {
    const names = agentNames([
      span('manager', 1, 'AGENT', team),
      span('step-1', 2, 'CHAIN', {}, 'manager'),
      span('call-1', 3, 'LLM', callsTool('math_agent'), 'step-1'),
      span('run-1', 4, 'AGENT', {}, 'step-1'),
      span('step-2', 5, 'CHAIN', {}, 'manager'),
      span('call-2', 6, 'LLM', callsTool('search_agent'), 'step-2'),
      span('run-2', 7, 'AGENT', {}, 'step-2'),
    ]);
    assert.deepEqual(Object.fromEntries(names), {
      manager: 'manager',
      'run-1': 'math_agent',
      'run-2': 'search_agent',
    });
  });

  it("prefers the agent's own name, then a tool span's, and never a model's", () => {
    const names = agentNames([
      span('root', 1, 'AGENT', { 'gen_ai.agent.name': 'planner' }),
      span('tool', 2, 'TOOL', { 'tool.name': 'researcher' }, 'root'),
      span('inner', 3, 'AGENT', {}, 'tool'),
      span('named', 4, 'AGENT', { 'agent.name': 'writer' }, 'root'),
      span('lone', 5, 'AGENT', {}),
      span('model', 6, 'LLM', { 'llm.model_name': 'anthropic/claude-3-7-sonnet-latest' }, 'lone'),
    ]);
    assert.deepEqual(Object.fromEntries(names), {
      root: 'planner',
      inner: 'researcher',
      named: 'writer',
      lone: 'agent',
    });
  });
});
