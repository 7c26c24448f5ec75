import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AgentBook } from './agent-book.js';
import {
  identifyAgent,
  nameInSystemPrompt,
  promptFingerprint,
  RunClock,
  traceIdOf,
} from './identify.js';
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

/** An assistant message calling `name` with `args`, answered by `output`, as Chat Completions sends it. */
const answeredCall = (
  id: string,
  name: string,
  args: unknown,
  output: string,
  speaker?: string,
) => [
  {
    role: 'assistant',
    ...(speaker ? { name: speaker } : {}),
    content: '',
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  },
  { role: 'tool', tool_call_id: id, content: output },
];

describe('a handoff is any answered tool call that names the agent it hands to', () => {
  const task = { role: 'user', content: 'How much do 3 widgets cost?' };
  const prompt = { role: 'system', content: 'Look up unit prices with lookup_price.' };
  const cases: [string, unknown[], string | undefined][] = [
    [
      "LlamaIndex.TS's handOff: the toAgent argument, answered 'Agent X is now handling'",
      answeredCall(
        'h1',
        'handOff',
        { toAgent: 'ResearchAgent', reason: 'prices' },
        'Agent ResearchAgent is now handling the request due to the following reason: prices.\nPlease continue with the current request.',
      ),
      'ResearchAgent',
    ],
    [
      'an output alone that says who is now handling it',
      answeredCall('h1', 'route', {}, 'PriceResearcher is now handling the request.'),
      'PriceResearcher',
    ],
    [
      'a delegation tool taking agent_name',
      answeredCall('d1', 'delegate_task', { agent_name: 'analyst', task: 'sum' }, 'ok'),
      'analyst',
    ],
    [
      "a router's select_agent taking agent",
      answeredCall('r1', 'select_agent', { agent: 'researcher' }, 'selected'),
      'researcher',
    ],
    [
      "'transferred to X' from a tool not called transfer_to_…",
      answeredCall('t1', 'handoff', {}, 'Successfully transferred to analyst_agent'),
      'analyst_agent',
    ],
    [
      'a refused handoff is none',
      answeredCall(
        'h1',
        'handOff',
        { toAgent: 'Nobody' },
        'Agent Nobody not found. Select a valid agent to hand off to. Valid agents: ResearchAgent',
      ),
      undefined,
    ],
    [
      'an unanswered handoff is none yet',
      answeredCall('h1', 'handOff', { toAgent: 'ResearchAgent' }, 'x').slice(0, 1),
      undefined,
    ],
  ];
  for (const [name, history, agent] of cases)
    test(name, () => {
      const found = identifyAgent(undefined, chat([prompt, task, ...history]));
      if (agent) assert.deepEqual(found, { agent, source: 'handoff' });
      else assert.equal(found.source, 'fingerprint');
    });

  test('a tool named after an agent the run knows hands to it', () => {
    const history = chat([prompt, task, ...answeredCall('a1', 'Analyst', { q: 'sum' }, '41.5')]);
    assert.equal(identifyAgent(undefined, history).source, 'fingerprint', 'unknown: no handoff');
    const book = new AgentBook();
    book.note(undefined, 'analyst', 'system-prompt');
    assert.deepEqual(identifyAgent(undefined, history, book), {
      agent: 'analyst',
      source: 'handoff',
    });
  });
});

test("a supervisor keeps its name when its history ends with the worker's messages after a handoff", () => {
  // Python LangGraph's hand-built supervisor: handoff tools return Command(goto=…, graph=PARENT);
  // the worker never hands back, so the supervisor's next call ends with the worker's messages.
  const supervisor = { role: 'system', content: 'You are a supervisor managing two agents.' };
  const worker = { role: 'system', content: 'You look up prices with lookup_price.' };
  const task = { role: 'user', content: 'How much do 3 widgets cost?' };
  const handoff = answeredCall(
    's1',
    'transfer_to_researcher_agent',
    {},
    'Successfully transferred to researcher_agent',
    'supervisor',
  );
  const lookup = answeredCall('w1', 'lookup_price', { item: 'widget' }, '12.5', 'researcher_agent');
  const book = new AgentBook();
  const calls = [
    chat([supervisor, task]),
    chat([worker, task, ...handoff]),
    chat([worker, task, ...handoff, ...lookup]),
    chat([
      supervisor,
      task,
      ...handoff,
      ...lookup,
      { role: 'assistant', name: 'researcher_agent', content: 'unit price: 12.50 USD' },
    ]),
  ];
  assert.deepEqual(
    calls.map((request) => book.identify(undefined, request)),
    [
      { agent: 'supervisor', source: 'system-prompt' },
      { agent: 'researcher_agent', source: 'handoff' },
      { agent: 'researcher_agent', source: 'known-prompt' },
      { agent: 'supervisor', source: 'known-prompt' },
    ],
  );
  // Without the run's memory, the last call would be taken for the worker's.
  assert.equal(identifyAgent(undefined, calls[3]!).agent, 'researcher_agent');
});

test('an empty system prompt and a fingerprint name no prompt for the run', () => {
  const book = new AgentBook();
  const bare = chat([{ role: 'user', content: 'Hi' }]);
  assert.equal(book.identify('alice', bare).agent, 'alice');
  assert.equal(book.identify(undefined, bare).source, 'fingerprint');
  const unnamed = chat([{ role: 'system', content: 'Answer briefly.' }]);
  assert.equal(book.identify(undefined, unnamed).source, 'fingerprint');
  assert.equal(book.identify(undefined, unnamed).source, 'fingerprint');
});

test('calls carrying a traceparent are grouped by its trace id; the run header still wins', () => {
  let next = 0;
  const clock = new RunClock({ gapMs: 1000, now: () => 0, newId: () => `run-${(next += 1)}` });
  const parent = (trace: string, span: string) =>
    `00-${trace.padEnd(32, '0')}-${span.padEnd(16, '1')}-01`;
  const first = clock.begin(undefined, parent('aa', 'a'));
  assert.equal(clock.begin(undefined, parent('aa', 'b')), first, 'same trace, another span');
  const second = clock.begin(undefined, parent('bb', 'a'));
  assert.notEqual(second, first, 'another trace: another run, though no gap passed');
  assert.equal(clock.begin('mine', parent('aa', 'c')), 'mine');
  assert.equal(RunClock.counted(undefined, parent('aa', 'a')), false);
  assert.equal(
    traceIdOf(`00-${'0'.repeat(32)}-${'1'.repeat(16)}-01`),
    undefined,
    'invalid: all zero',
  );
  assert.equal(traceIdOf('garbage'), undefined);
  const untraced = clock.begin(undefined, 'garbage');
  assert.ok(
    ![first, second].includes(untraced),
    'a call with no valid traceparent: the idle clock',
  );
});
