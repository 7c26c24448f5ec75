import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { identifyAgent, nameInSystemPrompt, promptFingerprint, RunClock } from './identify.js';
import { wireApiFor } from '../wire/registry.js';
import { RECOMMENDED_PROMPT_PREFIX } from '@openai/agents-core/extensions';

const FIXTURES = fileURLToPath(new URL('../__fixtures__/requests', import.meta.url));

interface Fixture {
  framework: string;
  api: string;
  headers?: Record<string, string>;
  expected: { agent: string; source: string };
  body: unknown;
}

describe('the agent of a call, from the request bodies frameworks send', () => {
  for (const file of readdirSync(FIXTURES).filter((name) => name.endsWith('.json'))) {
    const fixture = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Fixture;
    test(`${file}: ${fixture.framework}`, () => {
      const api = wireApiFor(fixture.api)!;
      const request = api.readRequest(fixture.body);
      const { agent, source } = identifyAgent(fixture.headers?.['x-faultline-agent'], request);
      assert.equal(source, fixture.expected.source);
      if (source === 'fingerprint') {
        assert.match(agent, /^agent-[0-9a-f]{8}$/);
        assert.equal(agent, promptFingerprint(request.system), 'stable across calls');
      } else assert.equal(agent, fixture.expected.agent);
    });
  }
});

test('names a system prompt gives, and the generic ones it does not', () => {
  const cases: [string, string | undefined][] = [
    ['You are the planner of a small team that solves tasks.', 'planner'],
    ['You are an expert Python coder who writes tests first.', 'coder'],
    ['You are Coder, a senior engineer.', 'Coder'],
    ['You are Senior Research Analyst. You work at a think tank.', 'Senior Research Analyst'],
    ['Your name is Alice. You review pull requests.', 'Alice'],
    ['# Role\nYou are the reviewer.', 'reviewer'],
    ['You are a helpful assistant.', undefined],
    ['You are a helpful AI assistant.\nSolve tasks using your coding skills.', undefined],
    ['You are in a role play game. The following roles are available: Coder, Planner.', undefined],
    ['Answer briefly.', undefined],
  ];
  for (const [prompt, name] of cases) assert.equal(nameInSystemPrompt(prompt), name, prompt);
});

test('the header wins over the body and the prompt; the body over the prompt', () => {
  const request = {
    stream: false,
    system: 'You are the planner.',
    items: [],
    declaredAgent: 'from-body',
  };
  assert.deepEqual(identifyAgent('  From Header ', request), {
    agent: 'From Header',
    source: 'header',
  });
  assert.deepEqual(identifyAgent(undefined, request), { agent: 'from-body', source: 'body' });
  assert.notEqual(promptFingerprint('a'), promptFingerprint('b'));
});

test('calls without a run header split into runs at idle gaps, never while one is in flight', () => {
  let now = 0;
  let next = 0;
  const clock = new RunClock({ gapMs: 1000, now: () => now, newId: () => `run-${(next += 1)}` });
  assert.equal(clock.begin('named run!'), 'named_run_', 'a header names the run (file-safe)');
  const first = clock.begin(undefined);
  clock.end(first);
  now = 500;
  assert.equal(clock.begin(undefined), first, 'within the gap');
  now = 5000; // a long call still in flight
  assert.equal(clock.begin(undefined), first, 'not while a call is in flight');
  clock.end(first);
  clock.end(first);
  now = 7000;
  assert.notEqual(clock.begin(undefined), first, 'a new run after the gap');
});

test('every "You are" sentence is read: the SDK\'s handoff preamble gives way to the role after it', () => {
  const instructions = `${RECOMMENDED_PROMPT_PREFIX}\nYou are the Researcher of a pricing team. Look up prices with lookup_price.`;
  assert.equal(nameInSystemPrompt(instructions), 'Researcher');
  assert.equal(
    nameInSystemPrompt('You are a helpful assistant. You are the analyst: you do the sums.'),
    'analyst',
  );
});

test('a role phrase ends at its role noun, never mid-phrase', () => {
  const cases: [string, string][] = [
    // The LangGraph supervisor docs' own prompts.
    ['You are a team supervisor managing a research expert and a math expert.', 'supervisor'],
    ['You are a supervisor managing two agents:\n- a research agent.', 'supervisor'],
    [
      'You are a world class researcher with access to web search. Do not do any math.',
      'researcher',
    ],
    ['You are a math expert. Always use one tool at a time.', 'math expert'],
    ['You are a senior pricing analyst at a retailer.', 'analyst'],
  ];
  for (const [prompt, name] of cases) assert.equal(nameInSystemPrompt(prompt), name, prompt);
});

/** A Chat Completions request's view. */
const chat = (messages: unknown[]) => wireApiFor('/v1/chat/completions')!.readRequest({ messages });

test('a handoff names the agent the calls after it belong to, by the name its output gives', () => {
  const handedOff = wireApiFor('/v1/responses')!.readRequest({
    instructions: `${RECOMMENDED_PROMPT_PREFIX}\nYou help with pricing.`,
    input: [
      { role: 'user', content: 'How much do 3 widgets cost?' },
      {
        type: 'function_call',
        call_id: 'c1',
        name: 'transfer_to_price_researcher',
        arguments: '{}',
      },
      { type: 'function_call_output', call_id: 'c1', output: '{"assistant":"Price Researcher"}' },
      { type: 'function_call', call_id: 'c2', name: 'lookup_price', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c2', output: '12.5' },
    ],
  });
  assert.deepEqual(identifyAgent(undefined, handedOff), {
    agent: 'Price Researcher',
    source: 'handoff',
  });
  // LangGraph's supervisor hands back with transfer_back_to_supervisor; the tool's name names it.
  const back = chat([
    { role: 'system', content: 'You are a team supervisor managing a research expert.' },
    { role: 'user', content: 'How much?' },
    {
      role: 'assistant',
      name: 'researcher',
      content: '',
      tool_calls: [
        {
          id: 't1',
          type: 'function',
          function: { name: 'transfer_back_to_supervisor', arguments: '{}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 't1', content: 'Successfully transferred back to supervisor' },
  ]);
  assert.deepEqual(identifyAgent(undefined, back), { agent: 'supervisor', source: 'handoff' });
});

test('a tool that is called transfer_to_… but answers as no handoff does is not a handoff', () => {
  const banking = chat([
    { role: 'system', content: 'You are the teller of a bank.' },
    { role: 'user', content: 'Move 10 USD to savings.' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: 't1',
          type: 'function',
          function: { name: 'transfer_to_savings', arguments: '{"amount":10}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 't1', content: '{"ok":true,"balance":110}' },
  ]);
  assert.deepEqual(identifyAgent(undefined, banking), { agent: 'teller', source: 'system-prompt' });
});

test("the name on the agent's own assistant message names the call that continues its turn", () => {
  const own = chat([
    { role: 'system', content: 'You look up prices.' },
    { role: 'user', content: 'How much?' },
    {
      role: 'assistant',
      name: 'researcher',
      content: '',
      tool_calls: [
        { id: 't1', type: 'function', function: { name: 'lookup_price', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 't1', content: '12.5' },
  ]);
  assert.deepEqual(identifyAgent(undefined, own), { agent: 'researcher', source: 'history-name' });
  // A name on a message that does not end the history may be another agent's: not used.
  const other = chat([
    { role: 'system', content: 'You route questions.' },
    { role: 'assistant', name: 'researcher', content: 'unit price: 12.50 USD' },
    { role: 'user', content: 'Who is next?' },
  ]);
  assert.equal(identifyAgent(undefined, other).source, 'fingerprint');
});
