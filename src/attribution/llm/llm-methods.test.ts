/**
 * The LLM methods' logic against an in-process scripted model, and end to end against local
 * servers that speak each provider's real wire protocol.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { z } from 'zod';
import { scriptedModel } from '../../../test/scripted-model.js';
import { startScriptedProvider, type ProviderKind } from '../../../test/scripted-provider.js';
import { buildTrace } from '../../trace/build-trace.js';
import { allAtOnce, binarySearch, hybrid, stepByStep } from './methods.js';

const trace = buildTrace({
  id: 'demo',
  format: 'test',
  question: 'What is 17 * 23?',
  groundTruth: '391',
  steps: [
    { speaker: 'human', content: 'What is 17 * 23?' },
    { speaker: 'Planner', content: 'Plan: Calculator multiplies, Verifier checks.' },
    { speaker: 'Calculator', content: '17 * 23 = 381' },
    { speaker: 'Verifier', content: 'Looks right.' },
    { speaker: 'Planner', content: 'Final answer: 381' },
    { speaker: 'Calculator', content: 'TERMINATE' },
    { speaker: 'Verifier', content: 'Done.' },
    { speaker: 'Planner', content: 'Closing.' },
    { speaker: 'Verifier', content: 'Bye.' },
  ],
});

const ANSWER = '{"agent": "Calculator", "step": 2, "reason": "17 * 23 is 391, not 381."}';

describe('LLM method logic', () => {
  it('all-at-once names agent and step, with usage and the model', async () => {
    const client = scriptedModel([ANSWER]);
    const result = await allAtOnce(trace, { client });
    assert.equal(result.agent, 'Calculator');
    assert.equal(result.step, 2);
    assert.match(result.reason, /391/);
    assert.deepEqual(result.usage, { calls: 1, inputTokens: 100, outputTokens: 20 });
    assert.equal(result.model, 'openai:scripted-model');
    assert.match(client.prompts()[0]!, /Expected answer: 391/);
    assert.match(client.prompts()[0]!, /Step 2 - Calculator:\n17 \* 23 = 381/);
    assert.deepEqual(Object.keys((client.requests[0]!.schema as z.ZodObject).shape).sort(), [
      'agent',
      'modes',
      'reason',
      'step',
    ]);
    // The question lists every MAST mode; a reply without modes names none.
    assert.match(client.prompts()[0]!, /2\.6 Reasoning-action mismatch: /);
    assert.equal(result.modes, undefined);
  });

  it('all-at-once and hybrid read the failure modes of the reply, codes or Aegis-style pairs', async () => {
    const withModes = scriptedModel([
      '{"agent": "Calculator", "step": 2, "reason": "wrong product", "modes": ["FM-3.3", "2.6 Reasoning-action mismatch", "9.9"]}',
    ]);
    const result = await allAtOnce(trace, { client: withModes });
    assert.deepEqual(
      result.modes?.map((mode) => [mode.code, mode.name]),
      [
        ['3.3', 'Incorrect verification'],
        ['2.6', 'Reasoning-action mismatch'],
      ],
    );
    assert.ok(result.modes?.every((mode) => mode.definition.length > 0 && mode.fix.length > 0));
    const pairs = scriptedModel([
      '{"agent": "Calculator", "step": 2, "reason": "wrong product", "modes": [{"agent": "Calculator", "modes": ["1.1"]}, {"agent": "Verifier", "modes": ["3.3"]}]}',
      '{"error": true, "reason": "381 is wrong"}',
    ]);
    const hybridResult = await hybrid(trace, { client: pairs });
    assert.equal(hybridResult.step, 2);
    assert.deepEqual(
      hybridResult.modes?.map((mode) => mode.code),
      ['1.1', '3.3'],
    );
  });

  it("reads the original tool's plain object as well as a trace", async () => {
    const client = scriptedModel([ANSWER]);
    const result = await allAtOnce(
      {
        question: 'What is 17 * 23?',
        ground_truth: '391',
        history: trace.steps.map((step) => ({
          role: 'assistant',
          name: step.speaker,
          content: step.content,
        })),
      },
      { client },
    );
    assert.equal(result.agent, 'Calculator');
    assert.equal(result.step, 2);
    assert.match(client.prompts()[0]!, /Expected answer: 391/);
    await assert.rejects(
      allAtOnce({ foo: 1 }, { client: scriptedModel([ANSWER]) }),
      /trace: unrecognised trace format \(top-level keys: foo\)/,
    );
  });

  it('omits the expected answer without ground truth', async () => {
    const client = scriptedModel([ANSWER]);
    await allAtOnce(trace, { client, useGroundTruth: false });
    assert.doesNotMatch(client.prompts()[0]!, /391/);
  });

  it("accepts the paper's text format", async () => {
    const client = scriptedModel([
      'Agent Name: calculator\nStep Number: 2\nReason for Mistake: wrong product',
    ]);
    const result = await allAtOnce(trace, { client });
    assert.equal(result.agent, 'Calculator');
    assert.equal(result.step, 2);
    assert.equal(result.reason, 'wrong product');
  });

  it('reads a step written as a digit string and a missing reason', async () => {
    const result = await allAtOnce(trace, {
      client: scriptedModel(['{"agent": "Calculator", "step": " 2 "}']),
    });
    assert.equal(result.step, 2);
    assert.equal(result.reason, '');
  });

  it('retries an unreadable reply once, then reports it unparsed with the raw text', async () => {
    const client = scriptedModel(['I am not sure.', 'Still thinking about it.']);
    const result = await allAtOnce(trace, { client });
    assert.equal(result.unparsed, true);
    assert.equal(result.agent, null);
    assert.equal(result.step, null);
    assert.equal(result.raw, 'Still thinking about it.');
    assert.equal(client.requests.length, 2);
    assert.match(client.prompts()[1]!, /could not be read/);
  });

  it('rejects a step outside the log rather than guessing', async () => {
    const client = scriptedModel([
      '{"agent": "Calculator", "step": 99, "reason": "x"}',
      '{"agent": "Calculator", "step": 2, "reason": "fixed"}',
    ]);
    const result = await allAtOnce(trace, { client });
    assert.equal(result.step, 2);
    assert.equal(result.usage.calls, 2);
  });

  it('step-by-step stops at the first step judged an error, within N calls', async () => {
    const client = scriptedModel([
      '{"error": false, "reason": "plan is fine"}',
      '1. Yes. The product is wrong.',
    ]);
    const result = await stepByStep(trace, { client });
    assert.equal(result.step, 2);
    assert.equal(result.agent, 'Calculator');
    assert.equal(client.requests.length, 2);
    assert.match(client.prompts()[0]!, /Log up to and including step 1/);
    assert.doesNotMatch(
      client.prompts()[0]!,
      /17 \* 23 = 381/,
      'a verdict sees only the log up to its step',
    );
  });

  it("step-by-step asks about a simulated customer's turns, never the task or a relay", async () => {
    const support = buildTrace({
      id: 'support',
      format: 'test',
      question: 'Cancel my order for the blue lamp.',
      steps: [
        { speaker: 'user', content: 'Cancel my order for the blue lamp.' },
        { speaker: 'assistant', content: 'Which order is it? Please give me its id.' },
        { speaker: 'user', content: 'It is order #W99, the red chair one.' },
        { speaker: 'user', content: 'Quoting: Which order is it? Please give me its id. Again.' },
        { speaker: 'assistant', content: 'Cancelled order #W99.' },
      ],
    });
    const client = scriptedModel([
      '{"error": false, "reason": "asks for the id"}',
      '{"error": true, "reason": "the customer gave the wrong order"}',
    ]);
    const result = await stepByStep(support, { client });
    assert.equal(result.step, 2);
    assert.equal(result.agent, 'user');
    assert.match(client.prompts()[0]!, /Agents: user, assistant/);
  });

  it('step-by-step reports no answer when no step is judged an error', async () => {
    const client = scriptedModel(
      trace.steps.slice(1).map(() => '{"error": false, "reason": "ok"}'),
    );
    const result = await stepByStep(trace, { client });
    assert.equal(result.step, null);
    assert.equal(client.requests.length, trace.steps.length - 1);
  });

  it('binary search uses at most ⌈log2 N⌉ choices and never flips a coin', async () => {
    // Candidates 1..8 (8 steps): earlier 1-4, later 3-4, earlier 3.
    const client = scriptedModel([
      '{"half": "earlier", "reason": "the error is early"}',
      'It is in the later half.',
      '{"half": "earlier", "reason": "step 3 agrees"}',
    ]);
    const result = await binarySearch(trace, { client });
    assert.equal(result.step, 3);
    assert.ok(client.requests.length <= Math.ceil(Math.log2(8)));
    assert.match(
      client.prompts()[0]!,
      /earlier half \(steps 1 to 4\) or the later half \(steps 5 to 8\)/,
    );

    const unsure = scriptedModel([
      '{"half": "earlier", "reason": "x"}',
      'maybe the earlier half or the later half',
      'no idea',
    ]);
    const unread = await binarySearch(trace, { client: unsure });
    assert.equal(unread.unparsed, true);
    assert.equal(unread.step, null);
    assert.equal(unsure.requests.length, 3, 'one choice, then one unreadable reply and its retry');
  });

  it('binary search always answering one half ends at the first or the last candidate', async () => {
    const always = (half: string) => scriptedModel(Array(8).fill(`{"half": "${half}"}`));
    assert.equal((await binarySearch(trace, { client: always('earlier') })).step, 1);
    assert.equal((await binarySearch(trace, { client: always('later') })).step, 8);
    // A system prompt before the task is the framework's, never the decisive step.
    const prompted = buildTrace({
      id: 'prompted',
      format: 'test',
      question: trace.question,
      steps: [
        { speaker: 'system', content: 'You are a careful team.' },
        ...trace.steps.map(({ speaker, content }) => ({ speaker, content })),
      ],
    });
    assert.equal((await binarySearch(prompted, { client: always('earlier') })).step, 2);
  });

  it("hybrid judges only the named agent's steps", async () => {
    const client = scriptedModel([
      '{"agent": "Calculator", "step": 5, "reason": "wrong product"}',
      '{"error": true, "reason": "381 is wrong"}',
    ]);
    const result = await hybrid(trace, { client });
    assert.equal(result.step, 2);
    assert.equal(result.agent, 'Calculator');
    assert.equal(client.requests.length, 2);
    assert.match(client.prompts()[1]!, /Is step 2 \(by Calculator\)/);
  });

  it("hybrid's fallback never pairs an agent with another agent's step", async () => {
    const noes = ['{"error": false, "reason": "ok"}', '{"error": false, "reason": "ok"}'];
    const client = scriptedModel([
      '{"agent": "Calculator", "step": 3, "reason": "wrong product"}',
      ...noes,
    ]);
    const result = await hybrid(trace, { client });
    assert.equal(result.agent, 'Calculator');
    assert.equal(result.step, 2, "step 3 is the Verifier's: the Calculator's first step is named");
    assert.match(result.reason, /first step is named/);
  });

  it('counts no call for a cached reply and estimates cost from the price', async () => {
    const cached = await allAtOnce(trace, { client: scriptedModel([ANSWER], { cached: true }) });
    assert.equal(cached.usage.calls, 0);
    const priced = await allAtOnce(trace, {
      client: scriptedModel([ANSWER], { price: { input: 10, output: 20 } }),
    });
    assert.equal(priced.usage.costUsd, (100 * 10 + 20 * 20) / 1_000_000);
  });

  it('shortens a log longer than the context, keeping head and tail, with a warning', async () => {
    const long = buildTrace({
      ...trace,
      id: 'long',
      steps: trace.steps.map((step) => ({
        speaker: step.speaker,
        content: `HEAD ${'filler '.repeat(2000)} TAIL`,
      })),
    });
    const client = scriptedModel([ANSWER], { contextTokens: 4000 });
    const result = await allAtOnce(long, { client });
    assert.match(
      result.warnings?.[0] ?? '',
      /longer than the \d+ tokens the model's context leaves for it: \d+ of 9 steps were cut/,
    );
    const prompt = client.prompts()[0]!;
    assert.match(prompt, /HEAD/);
    assert.match(prompt, /TAIL/);
    assert.match(prompt, /characters omitted/);
  });
});

describe('LLM methods over provider wire protocols', () => {
  const saved = { ...process.env };
  before(() => {
    Object.assign(process.env, {
      OPENAI_API_KEY: 'test-key',
      ANTHROPIC_API_KEY: 'test-key',
      GOOGLE_API_KEY: 'test-key',
    });
  });
  after(() => {
    process.env = saved;
  });

  for (const kind of ['openai', 'anthropic', 'google', 'ollama'] as ProviderKind[]) {
    it(`all-at-once reads a JSON reply from ${kind}`, async () => {
      const server = await startScriptedProvider(kind, [ANSWER]);
      try {
        const result = await allAtOnce(trace, {
          model: `${kind}:scripted-model`,
          baseUrl: server.baseUrl,
          cache: false,
          maxRetries: 1,
        });
        assert.equal(result.agent, 'Calculator');
        assert.equal(result.step, 2);
        assert.equal(result.usage.calls, 1);
        assert.equal(result.usage.inputTokens, 100);
        assert.equal(result.usage.outputTokens, 20);
        assert.equal(result.model, `${kind}:scripted-model`);
        assert.equal(server.requests.length, 1);
        assert.match(server.prompts()[0]!, /Step 2 - Calculator:\n17 \* 23 = 381/);
      } finally {
        await server.close();
      }
    });
  }

  it('says which key is missing and that the offline method needs none', async () => {
    const key = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      await assert.rejects(
        allAtOnce(trace, { model: 'anthropic:claude-sonnet-4-5' }),
        /ANTHROPIC_API_KEY is not set: .*--method offline, which needs no key/,
      );
    } finally {
      process.env.ANTHROPIC_API_KEY = key;
    }
    await assert.rejects(
      allAtOnce(trace, {}),
      /all-at-once needs a model: add --model provider:model/,
    );
    await assert.rejects(allAtOnce(trace, { model: 'gpt-4o' }), /must be written provider:model/);
    await assert.rejects(
      allAtOnce(trace, { model: 'mystery:model' }),
      /unknown provider "mystery" in "mystery:model"; choose one of: openai, anthropic/,
    );
  });
});

describe('attribute() with an LLM method', () => {
  it('takes the model at the top level, as the original tool does', async () => {
    const { attribute } = await import('../attribute.js');
    const server = await startScriptedProvider('ollama', [ANSWER]);
    try {
      const result = await attribute(trace, {
        method: 'all-at-once',
        model: 'ollama:llama3.1',
        baseUrl: server.baseUrl,
        llm: { cache: false },
      });
      assert.equal(result.step, 2);
      assert.equal(result.model, 'ollama:llama3.1');
    } finally {
      await server.close();
    }
  });
});
