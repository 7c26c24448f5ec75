import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { identifyAgent, nameInSystemPrompt, promptFingerprint, RunClock } from './identify.js';
import { wireApiFor } from './wire/registry.js';

const FIXTURES = fileURLToPath(new URL('./__fixtures__/requests', import.meta.url));

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
    ['You are an expert Python coder who writes tests first.', 'expert Python coder'],
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
