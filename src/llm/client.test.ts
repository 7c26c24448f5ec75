/**
 * The model client against local servers that speak each provider's real wire protocol: replies
 * and usage, structured output, retries (on a fake clock), the reply cache and cost.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import { z } from 'zod';
import {
  startScriptedProvider,
  type ProviderKind,
  type ScriptEntry,
  type ScriptedServer,
} from '../../test/scripted-provider.js';
import { createModelClient, type ModelClientOptions } from './client.js';

const KEYS = {
  OPENAI_API_KEY: 'test-key',
  ANTHROPIC_API_KEY: 'test-key',
  GOOGLE_API_KEY: 'test-key',
};
const REQUEST = { system: 'You judge logs.', prompt: 'Which step failed?' };

/**
 * Settles `work` while advancing the mocked clock in small steps, so back-off waits pass at once;
 * returns the result and how much mocked time went by.
 */
async function onFakeClock<Result>(work: () => Promise<Result>): Promise<{
  result: Result;
  elapsed: number;
}> {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  let settled = false;
  const running = work();
  // Handlers attached now: a rejection while the clock runs is not an unhandled one.
  running.then(
    () => (settled = true),
    () => (settled = true),
  );
  let elapsed = 0;
  while (!settled && elapsed < 3_600_000) {
    await new Promise((resolve) => setImmediate(resolve));
    mock.timers.tick(250);
    elapsed += 250;
  }
  return { result: await running, elapsed };
}

describe('model client over provider wire protocols', () => {
  let cacheFolder = '';
  const saved = { ...process.env };
  before(async () => {
    cacheFolder = await mkdtemp(join(tmpdir(), 'faultline-cache-'));
    Object.assign(process.env, KEYS);
  });
  after(async () => {
    process.env = saved;
    await rm(cacheFolder, { recursive: true, force: true });
  });
  afterEach(() => mock.timers.reset());

  async function withServer<Result>(
    kind: ProviderKind,
    script: ScriptEntry[],
    run: (options: ModelClientOptions, server: ScriptedServer) => Promise<Result>,
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
    it(`reads ${kind}'s reply and usage`, async () => {
      await withServer(kind, ['the reply'], async (options, server) => {
        const reply = await createModelClient(options).generate(REQUEST);
        assert.deepEqual(reply, {
          text: 'the reply',
          inputTokens: 100,
          outputTokens: 20,
          cached: false,
        });
        assert.equal(server.requests.length, 1);
        assert.match(server.prompts()[0]!, /Which step failed\?/);
        assert.match(server.prompts()[0]!, /You judge logs\./);
      });
    });
  }

  it('reaches Ollama at its bare address and tells it the context window', async () => {
    await withServer('ollama', ['the reply'], async (options, server) => {
      const bare = options.baseUrl!.replace(/\/api$/, '/');
      const reply = await createModelClient({
        ...options,
        baseUrl: bare,
        contextTokens: 16_384,
      }).generate(REQUEST);
      assert.equal(reply.text, 'the reply');
      assert.match(server.requests[0]!.path, /^\/api\/chat$/);
      assert.deepEqual(server.requests[0]!.body.options, { num_ctx: 16_384 });
    });
  });

  it("asks OpenAI for structured output with the reply's JSON schema", async () => {
    await withServer('openai', ['{"agent": "A", "step": 2}'], async (options, server) => {
      await createModelClient(options).generate({
        ...REQUEST,
        schema: z.object({ agent: z.string(), step: z.number() }),
        schemaName: 'attribution',
      });
      const format = server.requests[0]!.body.response_format as {
        type: string;
        json_schema?: { schema: { properties: Record<string, unknown> } };
      };
      assert.equal(format.type, 'json_schema');
      assert.deepEqual(Object.keys(format.json_schema!.schema.properties).sort(), [
        'agent',
        'step',
      ]);
    });
  });

  it('honours Retry-After on HTTP 429', async () => {
    const script: ScriptEntry[] = [{ status: 429, headers: { 'retry-after': '1' } }, 'ok'];
    await withServer('openai', script, async (options, server) => {
      const client = createModelClient({ ...options, maxRetries: 2 });
      const { result } = await onFakeClock(() => client.generate(REQUEST));
      assert.equal(result.text, 'ok');
      assert.equal(server.requests.length, 2);
      const waited = server.requests[1]!.at - server.requests[0]!.at;
      assert.ok(waited >= 1000, `waited ${waited} ms of mocked time`);
    });
  });

  it('honours a Retry-After above a minute, and refuses one above ten minutes', async () => {
    const script: ScriptEntry[] = [{ status: 429, headers: { 'retry-after': '120' } }, 'ok'];
    await withServer('openai', script, async (options, server) => {
      const client = createModelClient({ ...options, maxRetries: 2 });
      const { result } = await onFakeClock(() => client.generate(REQUEST));
      assert.equal(result.text, 'ok');
      const waited = server.requests[1]!.at - server.requests[0]!.at;
      assert.ok(waited >= 120_000, `waited ${waited} ms of mocked time`);
    });
    mock.timers.reset();
    await withServer(
      'openai',
      [{ status: 429, headers: { 'retry-after': '3600' } }],
      async (options) => {
        const client = createModelClient({ ...options, maxRetries: 2 });
        await assert.rejects(
          client.generate(REQUEST),
          /asks to wait 3600 s, longer than faultline waits \(10 min\); try again later; last error \(HTTP 429\)/,
        );
      },
    );
  });

  it('gives up with a ProviderError naming the status after retries', async () => {
    await withServer('openai', [{ status: 503 }, { status: 503 }], async (options) => {
      const client = createModelClient({ ...options, maxRetries: 1 });
      await assert.rejects(
        onFakeClock(() => client.generate(REQUEST)),
        /openai:scripted-model: gave up after 2 attempts; last error \(HTTP 503\)/,
      );
    });
  });

  it('serves a repeated request from the cache, marked as cached', async () => {
    await withServer('openai', ['cached reply'], async (options, server) => {
      const client = createModelClient({ ...options, cache: true, cacheFolder });
      const first = await client.generate(REQUEST);
      const second = await client.generate(REQUEST);
      assert.equal(first.cached, false);
      assert.deepEqual(second, { ...first, cached: true });
      assert.equal(server.requests.length, 1);
    });
  });

  it('prices a model from the table, overridable', async () => {
    const client = createModelClient({
      model: 'openai:scripted-model',
      cache: false,
      prices: { 'openai:scripted-model': { input: 10, output: 20 } },
    });
    assert.deepEqual(client.price, { input: 10, output: 20 });
  });
});
