/**
 * The LLM methods against local servers that speak each provider's real wire protocol.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  startScriptedProvider,
  type ProviderKind,
  type ScriptEntry,
} from '../../../test/scripted-provider.js';
import { buildTrace } from '../../trace/build-trace.js';
import { allAtOnce, binarySearch, hybrid, stepByStep, type LlmOptions } from './methods.js';

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

const KEYS: Record<ProviderKind, Record<string, string>> = {
  openai: { OPENAI_API_KEY: 'test-key' },
  anthropic: { ANTHROPIC_API_KEY: 'test-key' },
  google: { GOOGLE_API_KEY: 'test-key' },
  ollama: {},
};

describe('LLM methods over provider wire protocols', () => {
  let cacheFolder = '';
  const saved = { ...process.env };
  before(async () => {
    cacheFolder = await mkdtemp(join(tmpdir(), 'faultline-cache-'));
    Object.assign(process.env, KEYS.openai, KEYS.anthropic, KEYS.google);
  });
  after(async () => {
    process.env = saved;
    await rm(cacheFolder, { recursive: true, force: true });
  });

  async function withServer<Result>(
    kind: ProviderKind,
    script: ScriptEntry[],
    run: (
      options: LlmOptions,
      server: Awaited<ReturnType<typeof startScriptedProvider>>,
    ) => Promise<Result>,
  ) {
    const server = await startScriptedProvider(kind, script);
    try {
      return await run(
        { model: `${kind}:scripted-model`, baseUrl: server.baseUrl, cache: false, maxRetries: 1 },
        server,
      );
    } finally {
      await server.close();
    }
  }

  for (const kind of ['openai', 'anthropic', 'google', 'ollama'] as const) {
    it(`all-at-once reads a JSON reply from ${kind}`, async () => {
      await withServer(
        kind,
        ['{"agent": "Calculator", "step": 2, "reason": "17 * 23 is 391, not 381."}'],
        async (options, server) => {
          const result = await allAtOnce(trace, options);
          assert.equal(result.agent, 'Calculator');
          assert.equal(result.step, 2);
          assert.match(result.reason, /391/);
          assert.equal(result.usage.calls, 1);
          assert.equal(result.usage.inputTokens, 100);
          assert.equal(result.usage.outputTokens, 20);
          assert.equal(result.model, `${kind}:scripted-model`);
          assert.equal(server.requests.length, 1);
          assert.match(server.prompts()[0]!, /Expected answer: 391/);
          assert.match(server.prompts()[0]!, /Step 2 - Calculator:\n17 \* 23 = 381/);
        },
      );
    });
  }

  it('omits the expected answer without ground truth', async () => {
    await withServer(
      'openai',
      ['{"agent": "Calculator", "step": 2, "reason": "x"}'],
      async (options, server) => {
        await allAtOnce(trace, { ...options, useGroundTruth: false });
        assert.doesNotMatch(server.prompts()[0]!, /391/);
      },
    );
  });

  it("asks OpenAI for structured output with the reply's JSON schema", async () => {
    await withServer(
      'openai',
      ['{"agent": "Calculator", "step": 2, "reason": "x"}'],
      async (options, server) => {
        await allAtOnce(trace, options);
        const format = server.requests[0]!.body.response_format as {
          type: string;
          json_schema?: { schema: { properties: Record<string, unknown> } };
        };
        assert.equal(format.type, 'json_schema');
        assert.deepEqual(Object.keys(format.json_schema!.schema.properties).sort(), [
          'agent',
          'reason',
          'step',
        ]);
      },
    );
  });

  it("accepts the paper's text format", async () => {
    await withServer(
      'ollama',
      ['Agent Name: calculator\nStep Number: 2\nReason for Mistake: wrong product'],
      async (options) => {
        const result = await allAtOnce(trace, options);
        assert.equal(result.agent, 'Calculator');
        assert.equal(result.step, 2);
        assert.equal(result.reason, 'wrong product');
      },
    );
  });

  it('retries an unreadable reply once, then reports it unparsed with the raw text', async () => {
    await withServer(
      'openai',
      ['I am not sure.', 'Still thinking about it.'],
      async (options, server) => {
        const result = await allAtOnce(trace, options);
        assert.equal(result.unparsed, true);
        assert.equal(result.agent, null);
        assert.equal(result.step, null);
        assert.equal(result.raw, 'Still thinking about it.');
        assert.equal(server.requests.length, 2);
        assert.match(server.prompts()[1]!, /could not be read/);
      },
    );
  });

  it('rejects a step outside the log rather than guessing', async () => {
    await withServer(
      'openai',
      [
        '{"agent": "Calculator", "step": 99, "reason": "x"}',
        '{"agent": "Calculator", "step": 2, "reason": "fixed"}',
      ],
      async (options) => {
        const result = await allAtOnce(trace, options);
        assert.equal(result.step, 2);
        assert.equal(result.usage.calls, 2);
      },
    );
  });

  it('step-by-step stops at the first step judged an error, within N calls', async () => {
    await withServer(
      'anthropic',
      ['{"error": false, "reason": "plan is fine"}', '1. Yes. The product is wrong.'],
      async (options, server) => {
        const result = await stepByStep(trace, options);
        assert.equal(result.step, 2);
        assert.equal(result.agent, 'Calculator');
        assert.equal(server.requests.length, 2);
        assert.match(server.prompts()[0]!, /Log up to and including step 1/);
        assert.doesNotMatch(
          server.prompts()[0]!,
          /17 \* 23 = 381/,
          'a verdict sees only the log up to its step',
        );
      },
    );
  });

  it('step-by-step reports no answer when no step is judged an error', async () => {
    const noes = trace.steps.slice(1).map(() => '{"error": false, "reason": "ok"}');
    await withServer('openai', noes, async (options, server) => {
      const result = await stepByStep(trace, options);
      assert.equal(result.step, null);
      assert.equal(server.requests.length, trace.steps.length - 1);
    });
  });

  it('binary search uses at most ⌈log2 N⌉ choices and never flips a coin', async () => {
    // Candidates 1..8 (8 steps): lower 1-4, upper 3-4, lower 3.
    await withServer(
      'google',
      [
        '{"half": "lower", "reason": "the error is early"}',
        'It is in the upper half.',
        '{"half": "lower", "reason": "step 3 agrees"}',
      ],
      async (options, server) => {
        const result = await binarySearch(trace, options);
        assert.equal(result.step, 3);
        assert.ok(server.requests.length <= Math.ceil(Math.log2(8)));
      },
    );
    await withServer(
      'openai',
      ['{"half": "lower", "reason": "x"}', 'maybe the lower half or the upper half', 'no idea'],
      async (options, server) => {
        const result = await binarySearch(trace, options);
        assert.equal(result.unparsed, true);
        assert.equal(result.step, null);
        assert.equal(
          server.requests.length,
          3,
          'one choice, then one unreadable reply and its retry',
        );
      },
    );
  });

  it("hybrid judges only the named agent's steps", async () => {
    await withServer(
      'openai',
      [
        '{"agent": "Calculator", "step": 5, "reason": "wrong product"}',
        '{"error": true, "reason": "381 is wrong"}',
      ],
      async (options, server) => {
        const result = await hybrid(trace, options);
        assert.equal(result.step, 2);
        assert.equal(result.agent, 'Calculator');
        assert.equal(server.requests.length, 2);
        assert.match(server.prompts()[1]!, /Is step 2 \(by Calculator\)/);
      },
    );
  });

  it('honours Retry-After on HTTP 429', async () => {
    const script: ScriptEntry[] = [
      { status: 429, headers: { 'retry-after': '1' } },
      '{"agent": "Calculator", "step": 2, "reason": "x"}',
    ];
    await withServer('openai', script, async (options, server) => {
      const result = await allAtOnce(trace, { ...options, maxRetries: 2 });
      assert.equal(result.step, 2);
      assert.equal(server.requests.length, 2);
      const waited = server.requests[1]!.at - server.requests[0]!.at;
      assert.ok(waited >= 900, `waited ${waited} ms`);
    });
  });

  it('gives up with a ProviderError naming the status after retries', async () => {
    await withServer('openai', [{ status: 503 }, { status: 503 }], async (options) => {
      await assert.rejects(
        allAtOnce(trace, { ...options, maxRetries: 1 }),
        /openai:scripted-model: gave up after 2 attempts; last error \(HTTP 503\)/,
      );
    });
  });

  it('serves a repeated run from the cache with zero calls', async () => {
    await withServer(
      'openai',
      ['{"agent": "Calculator", "step": 2, "reason": "x"}'],
      async (options, server) => {
        const cached = { ...options, cache: true, cacheFolder };
        const first = await allAtOnce(trace, cached);
        const second = await allAtOnce(trace, cached);
        assert.equal(first.usage.calls, 1);
        assert.equal(second.usage.calls, 0);
        assert.deepEqual({ ...second, usage: undefined }, { ...first, usage: undefined });
        assert.equal(server.requests.length, 1);
      },
    );
  });

  it('estimates cost from the price table, overridable', async () => {
    await withServer(
      'openai',
      ['{"agent": "Calculator", "step": 2, "reason": "x"}'],
      async (options) => {
        const result = await allAtOnce(trace, {
          ...options,
          prices: { 'openai:scripted-model': { input: 10, output: 20 } },
        });
        assert.equal(result.usage.costUsd, (100 * 10 + 20 * 20) / 1_000_000);
      },
    );
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
    await withServer(
      'openai',
      ['{"agent": "Calculator", "step": 2, "reason": "x"}'],
      async (options, server) => {
        const result = await allAtOnce(long, { ...options, contextTokens: 4000 });
        assert.match(result.warnings?.[0] ?? '', /longer than the model's 4000-token context/);
        const prompt = server.prompts()[0]!;
        assert.match(prompt, /HEAD/);
        assert.match(prompt, /TAIL/);
        assert.match(prompt, /characters omitted/);
      },
    );
  });

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
    const server = await startScriptedProvider('ollama', [
      '{"agent": "Calculator", "step": 2, "reason": "x"}',
    ]);
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
