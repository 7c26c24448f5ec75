import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { recordTeamRun, startHarness, type Harness } from '../../../test/recording-harness.js';
import { ROOT } from '../../../test/paths.js';
import {
  lastUserText,
  startWireServer,
  type WireAnswer,
  type WireRequest,
} from '../../../test/wire-server.js';
import { getMethod } from '../../attribution/registry.js';
import { Repository } from '../../store/repository.js';
import type { Trace } from '../../trace/model.js';
import { startProxy } from './proxy.js';
import { Recorder } from '../record/recorder.js';
import { recordingOf } from '../record/recording.js';
import { ReplayResponder } from '../replay/responder.js';

const run = promisify(execFile);
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The run as written to its file. */
function runFile(h: Harness, runId: string): Trace {
  return JSON.parse(readFileSync(join(h.runsFolder, `${runId}.json`), 'utf8')) as Trace;
}

/** Waits for the recorder to write what it has. */
async function settled(h: Harness): Promise<void> {
  await h.recorder.close();
}

/** A raw HTTP request, so tests can set Host and Origin as a browser would. */
function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? 'POST', headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

const chatBody = (text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: text }], ...extra });

describe('the proxy is faithful for the client', () => {
  test('the official openai client gets the same replies as directly, streaming and not', async () => {
    harness = await startHarness();
    const direct = new OpenAI({
      baseURL: harness.upstream.baseUrl,
      apiKey: 'sk-test',
      maxRetries: 0,
    });
    const proxied = new OpenAI({
      baseURL: `${harness.proxy.url}/v1`,
      apiKey: 'sk-test',
      maxRetries: 0,
    });
    const messages = [{ role: 'user' as const, content: 'What is 2 + 2?' }];

    const one = await direct.chat.completions
      .create({ model: 'scripted', messages })
      .withResponse();
    const two = await proxied.chat.completions
      .create({ model: 'scripted', messages })
      .withResponse();
    const { id: _one, created: _c1, ...directReply } = one.data;
    const { id: _two, created: _c2, ...proxiedReply } = two.data;
    assert.deepEqual(proxiedReply, directReply);
    assert.match(two.response.headers.get('x-request-id') ?? '', /^req-\d+$/);

    const chunks = async (client: OpenAI) => {
      const stream = await client.chat.completions.create({
        model: 'scripted',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      const all = [];
      for await (const chunk of stream) all.push(chunk);
      return all;
    };
    const directChunks = await chunks(direct);
    const proxiedChunks = await chunks(proxied);
    assert.ok(directChunks.length > 3, 'the reply streams in several chunks');
    assert.deepEqual(proxiedChunks, directChunks);

    await settled(harness);
    const [file] = readdirSync(harness.runsFolder).filter((name) => name.endsWith('.json'));
    const trace = JSON.parse(readFileSync(join(harness.runsFolder, file!), 'utf8')) as Trace;
    assert.deepEqual(
      trace.steps.map((step) => step.content),
      ['echo: What is 2 + 2?', 'echo: What is 2 + 2?'],
    );
    assert.equal(trace.steps[1]!.span?.inputTokens, 11, 'usage is read from the stream');
  });

  for (const api of ['chat', 'responses', 'anthropic'] as const) {
    test(`the AI SDK (${api}) gets the same text, tool calls and usage, streaming and not`, async () => {
      harness = await startHarness((request: WireRequest): WireAnswer =>
        lastUserText(request.body).includes('weather')
          ? {
              text: '',
              toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }],
            }
          : { text: `echo: ${lastUserText(request.body)}`, toolCalls: [] },
      );
      const model = (baseURL: string) =>
        api === 'anthropic'
          ? createAnthropic({ baseURL, apiKey: 'test' })('scripted')
          : api === 'chat'
            ? createOpenAI({ baseURL, apiKey: 'test' }).chat('scripted')
            : createOpenAI({ baseURL, apiKey: 'test' }).responses('scripted');
      const tools = {
        weather: tool({
          description: 'the weather in a city',
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
          }),
        }),
      };
      const both = async (prompt: string) => {
        const results = [];
        for (const baseURL of [harness!.upstream.baseUrl, `${harness!.proxy.url}/v1`]) {
          const whole = await generateText({ model: model(baseURL), prompt, tools, maxRetries: 0 });
          const streamed = streamText({ model: model(baseURL), prompt, tools, maxRetries: 0 });
          results.push({
            text: whole.text,
            calls: whole.toolCalls.map((call) => [call.toolName, call.input]),
            usage: [whole.usage.inputTokens, whole.usage.outputTokens],
            streamedText: await streamed.text,
            streamedCalls: (await streamed.toolCalls).map((call) => [call.toolName, call.input]),
            streamedUsage: [
              (await streamed.usage).inputTokens,
              (await streamed.usage).outputTokens,
            ],
          });
        }
        assert.deepEqual(results[1], results[0]);
        return results[0]!;
      };
      assert.equal((await both('hello')).text, 'echo: hello');
      assert.deepEqual((await both('the weather?')).calls, [['weather', { city: 'Oslo' }]]);

      await settled(harness);
      const [file] = readdirSync(harness.runsFolder).filter((name) => name.endsWith('.json'));
      const trace = JSON.parse(readFileSync(join(harness.runsFolder, file!), 'utf8')) as Trace;
      assert.equal(trace.steps.length, 4);
      assert.equal(trace.steps[0]!.content, 'echo: hello');
      assert.equal(trace.steps[1]!.content, 'echo: hello', 'the stream is accumulated');
      assert.deepEqual(
        trace.steps[3]!.toolCalls?.map((call) => [
          call.name,
          JSON.parse(call.arguments) as unknown,
        ]),
        [['weather', { city: 'Oslo' }]],
      );
    });
  }
});

test('a compressed reply reaches the client as sent and is recorded decoded', async () => {
  const body = JSON.stringify({
    id: 'chatcmpl-gz',
    object: 'chat.completion',
    created: 1,
    model: 'scripted',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'squeezed' }, finish_reason: 'stop' },
    ],
  });
  const compressed = gzipSync(body);
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': compressed.byteLength,
      });
      response.end(compressed);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  harness = await startHarness(undefined, { upstream: `http://127.0.0.1:${port}/v1` });
  try {
    const raw = await new Promise<{ encoding: string | undefined; bytes: Buffer }>(
      (resolve, reject) => {
        const request = httpRequest(
          `${harness!.proxy.url}/v1/chat/completions`,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'accept-encoding': 'gzip',
              'x-faultline-run': 'gz',
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                encoding: response.headers['content-encoding'],
                bytes: Buffer.concat(chunks),
              }),
            );
          },
        );
        request.on('error', reject);
        request.end(chatBody('hi'));
      },
    );
    assert.equal(raw.encoding, 'gzip');
    assert.deepEqual(raw.bytes, compressed, 'the bytes the upstream sent');
    const client = new OpenAI({
      baseURL: `${harness.proxy.url}/v1`,
      apiKey: 'sk-test',
      maxRetries: 0,
    });
    const reply = await client.chat.completions.create(
      { model: 'scripted', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-faultline-run': 'gz' } },
    );
    assert.equal(reply.choices[0]!.message.content, 'squeezed');
    await settled(harness);
    assert.deepEqual(
      runFile(harness, 'gz').steps.map((step) => [step.content, step.error]),
      [
        ['squeezed', undefined],
        ['squeezed', undefined],
      ],
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('calls become the steps of runs', () => {
  test('agents A, B, A in one run make one trace that attribute, inspect and the page read', async () => {
    harness = await startHarness();
    await recordTeamRun(harness, 'team-1');
    await settled(harness);
    const trace = runFile(harness, 'team-1');
    assert.deepEqual(
      trace.steps.map((step) => step.agent),
      ['A', 'B', 'A'],
    );
    assert.equal(trace.question, 'Plan the sum of 2 and 3.');
    assert.deepEqual(
      recordingOf(trace)!.calls.map((call) => [call.agent, call.agentCall, call.step]),
      [
        ['A', 0, 0],
        ['B', 0, 1],
        ['A', 1, 2],
      ],
    );

    // The page: the run is a stored trace (src/server/run-routes.test.ts reads it over HTTP).
    const stored = (await harness.runs.get('team-1'))!;
    const onPage = (await new Repository(harness.db).getTrace(stored.traceId))!;
    assert.deepEqual(
      onPage.steps.map((step) => step.agent),
      ['A', 'B', 'A'],
    );
    const verdict = await getMethod('offline').attribute(onPage);
    assert.ok(verdict.agent === 'A' || verdict.agent === 'B');

    // The command line reads the file.
    const file = join(harness.runsFolder, 'team-1.json');
    const cli = ['--import', 'tsx', join(ROOT, 'src/cli/index.ts')];
    const env = { ...process.env, FAULTLINE_HOME: harness.home };
    const inspected = JSON.parse(
      (await run(process.execPath, [...cli, 'inspect', file, '--json'], { env })).stdout,
    ) as Trace;
    assert.deepEqual(
      inspected.steps.map((step) => step.agent),
      ['A', 'B', 'A'],
    );
    const attributed = JSON.parse(
      (await run(process.execPath, [...cli, 'attribute', file, '--json'], { env })).stdout,
    ) as {
      agent: string;
    };
    assert.ok(['A', 'B'].includes(attributed.agent));
  });

  test('tool calls and tool outputs in the history read as the framework logs them', async () => {
    harness = await startHarness((request) =>
      request.body.messages && (request.body.messages as unknown[]).length > 2
        ? { text: 'It is sunny in Oslo.', toolCalls: [] }
        : {
            text: '',
            toolCalls: [{ id: 'call_7', name: 'weather', arguments: '{"city":"Oslo"}' }],
          },
    );
    const client = new OpenAI({
      baseURL: `${harness.proxy.url}/v1`,
      apiKey: 'sk-test',
      maxRetries: 0,
    });
    const headers = {
      'x-faultline-run': 'tools',
      'x-faultline-agent': 'forecaster',
      'x-faultline-task': 'weather-oslo',
    };
    const first = await client.chat.completions.create(
      { model: 'scripted', messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
      { headers },
    );
    const call = first.choices[0]!.message.tool_calls![0]!;
    await client.chat.completions.create(
      {
        model: 'scripted',
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          first.choices[0]!.message,
          { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 °C' },
        ],
      },
      { headers },
    );
    await settled(harness);
    const trace = runFile(harness, 'tools');
    assert.deepEqual(
      trace.steps.map((step) => [step.speaker, step.role, step.content]),
      [
        ['forecaster', 'agent', 'weather({"city":"Oslo"})'],
        ['weather', 'tool', 'sunny, 21 °C'],
        ['forecaster', 'agent', 'It is sunny in Oslo.'],
      ],
    );
    assert.equal(trace.steps[1]!.toolResults?.[0]?.id, 'call_7');
    assert.equal(trace.metadata.task, 'weather-oslo');
  });

  test('calls without a run header are split into runs by idle gaps', async () => {
    harness = await startHarness(undefined, { runGapMs: 150 });
    const client = new OpenAI({
      baseURL: `${harness.proxy.url}/v1`,
      apiKey: 'sk-test',
      maxRetries: 0,
    });
    const ask = (content: string) =>
      client.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content }] });
    await ask('one');
    await ask('two');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await ask('three');
    await settled(harness);
    const traces = readdirSync(harness.runsFolder)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(join(harness!.runsFolder, name), 'utf8')) as Trace)
      .sort((left, right) => left.steps.length - right.steps.length);
    assert.deepEqual(
      traces.map((trace) => trace.steps.map((step) => step.content)),
      [['echo: three'], ['echo: one', 'echo: two']],
    );
  });
});

describe('upstream errors reach the client unchanged and are recorded', () => {
  const failures: Record<string, WireAnswer> = {
    '401': {
      status: 401,
      body: {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    },
    '429': {
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { message: 'Rate limit reached', type: 'requests' } },
    },
    '500': {
      status: 500,
      body: { error: { message: 'The server had an error', type: 'server_error' } },
    },
    malformed: { malformed: '{"id": "chatcmpl-1", "choices": [' },
    'dropped before the reply': { drop: 'before-reply' },
    'dropped mid-stream': { drop: 'mid-stream' },
  };

  test('each failure reaches the client as it came, the step says what happened, and the proxy keeps serving', async () => {
    harness = await startHarness(
      (request) => failures[lastUserText(request.body)] ?? { text: 'fine', toolCalls: [] },
    );
    const expected: Record<string, RegExp> = {
      '401': /HTTP 401: Incorrect API key provided/,
      '429': /HTTP 429 \(Retry-After: 7\): Rate limit reached/,
      '500': /HTTP 500: The server had an error/,
      malformed: /reply body could not be read/,
      'dropped before the reply': /dropped the connection before replying/,
      'dropped mid-stream': /upstream connection dropped after \d+ bytes/,
    };
    for (const name of Object.keys(failures)) {
      const stream = name === 'dropped mid-stream';
      const body = chatBody(name, stream ? { stream: true } : {});
      const headers = { 'content-type': 'application/json', 'x-faultline-run': 'errors' };
      const viaProxy = rawRequest(`${harness.proxy.url}/v1/chat/completions`, { headers, body });
      const direct = rawRequest(`${harness.upstream.baseUrl}/chat/completions`, { headers, body });
      if (name.startsWith('dropped')) {
        // Dropped before or during the reply, the client's connection is dropped as a direct one.
        await assert.rejects(direct, /socket hang up|ECONNRESET|aborted/);
        await assert.rejects(viaProxy, /socket hang up|ECONNRESET|aborted/);
        continue;
      }
      const [proxied, straight] = await Promise.all([viaProxy, direct]);
      assert.equal(proxied.status, straight.status, name);
      assert.equal(proxied.body, straight.body, name);
      assert.equal(proxied.headers['retry-after'], straight.headers['retry-after'], name);
    }
    // Still serving.
    const client = new OpenAI({
      baseURL: `${harness.proxy.url}/v1`,
      apiKey: 'sk-test',
      maxRetries: 0,
    });
    const after = await client.chat.completions.create(
      { model: 'scripted', messages: [{ role: 'user', content: 'still there?' }] },
      { headers: { 'x-faultline-run': 'errors' } },
    );
    assert.equal(after.choices[0]!.message.content, 'fine');

    await settled(harness);
    const steps = runFile(harness, 'errors').steps;
    assert.equal(steps.length, Object.keys(failures).length + 1);
    Object.keys(failures).forEach((name, index) =>
      assert.match(steps[index]!.error ?? '', expected[name]!, name),
    );
    assert.equal(steps.at(-1)!.error, undefined);
    assert.equal(steps.at(-1)!.content, 'fine');
  });

  test('an upstream that cannot be reached is a 502 the client can read, and recorded', async () => {
    // A port nothing listens on: the connection is refused, never made.
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    harness = await startHarness(undefined, { upstream: `http://127.0.0.1:${port}` });
    const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      headers: { 'content-type': 'application/json', 'x-faultline-run': 'unreachable' },
      body: chatBody('hello'),
    });
    assert.equal(answer.status, 502);
    assert.match(
      (JSON.parse(answer.body) as { error: { message: string } }).error.message,
      /could not be reached \(connect ECONNREFUSED/,
    );
    await settled(harness);
    assert.match(runFile(harness, 'unreachable').steps[0]!.error ?? '', /could not be reached/);
  });

  test('replay drops a call whose upstream dropped it when recorded, as it was', async () => {
    const calls = [
      ['A', 'first'],
      ['B', 'dropped'],
      ['A', 'last'],
    ] as const;
    const send = (h: Harness, [agent, text]: (typeof calls)[number]) =>
      rawRequest(`${h.proxy.url}/v1/chat/completions`, {
        headers: {
          'content-type': 'application/json',
          'x-faultline-run': 'flaky',
          'x-faultline-agent': agent,
        },
        body: chatBody(text),
      });
    harness = await startHarness((request) =>
      lastUserText(request.body) === 'dropped'
        ? { drop: 'before-reply' }
        : { text: 'fine', toolCalls: [] },
    );
    for (const call of calls) await send(harness, call).catch(() => undefined);
    await settled(harness);
    const trace = runFile(harness, 'flaky');
    const recording = recordingOf(trace)!;
    assert.equal(recording.calls[1]!.noReply, 'dropped');
    await harness.close();
    const responder = new ReplayResponder({
      recording,
      trace,
      step: recording.calls[2]!.step!,
      fix: { text: 'fixed' },
    });
    harness = await startHarness(undefined, { responder, run: 'flaky-replay' });
    assert.equal((await send(harness, calls[0])).status, 200);
    await assert.rejects(send(harness, calls[1]), /socket hang up|ECONNRESET/);
    assert.match((await send(harness, calls[2])).body, /fixed/);
    assert.equal(harness.upstream.requests.length, 0, 'nothing reached the upstream');
  });

  test('a client that goes away before the upstream replies is recorded as such', async () => {
    harness = await startHarness(() => ({ hang: true }));
    const request = httpRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-faultline-run': 'gone' },
    });
    request.on('error', () => undefined);
    request.end(chatBody('hello'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    request.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await settled(harness);
    assert.match(
      runFile(harness, 'gone').steps[0]!.error ?? '',
      /the client closed the connection before the upstream replied/,
    );
  });

  test('a call the proxy fails on itself ends with an error step and releases its run', async () => {
    let broken = true;
    harness = await startHarness(undefined, {
      runGapMs: 50,
      injector: {
        rewriteRequest: () => {
          if (broken) return Promise.reject(new Error('the injector broke'));
          return Promise.resolve(undefined);
        },
        replacesReply: () => false,
        replaceReply: () => Promise.resolve(undefined),
      },
    });
    const headers = { 'content-type': 'application/json' };
    const failed = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      headers,
      body: chatBody('one'),
    });
    assert.equal(failed.status, 500);
    broken = false;
    await new Promise((resolve) => setTimeout(resolve, 150));
    const next = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      headers,
      body: chatBody('two'),
    });
    assert.equal(next.status, 200);
    await settled(harness);
    const traces = harness.recorder
      .runIds()
      .map((id) => runFile(harness!, id))
      .sort((left, right) => (left.steps[0]?.error ? -1 : 1) - (right.steps[0]?.error ? -1 : 1));
    assert.deepEqual(
      traces.map((trace) => trace.steps.map((step) => step.error ?? step.content)),
      [['faultline proxy: Error: the injector broke'], ['echo: two']],
      'the failed call is a finished step and the next call, after the gap, starts a new run',
    );
  });

  test('the official client reads a 429 with Retry-After through the proxy as directly', async () => {
    harness = await startHarness(() => failures['429']!);
    const failure = async (baseURL: string) => {
      const client = new OpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 });
      try {
        await client.chat.completions.create({
          model: 'scripted',
          messages: [{ role: 'user', content: 'x' }],
        });
      } catch (error) {
        const apiError = error as InstanceType<typeof OpenAI.APIError>;
        return [apiError.status, apiError.message, apiError.headers?.get('retry-after')];
      }
      return undefined;
    };
    assert.deepEqual(
      await failure(`${harness.proxy.url}/v1`),
      await failure(harness.upstream.baseUrl),
    );
    assert.deepEqual(await failure(`${harness.proxy.url}/v1`), [
      429,
      '429 Rate limit reached',
      '7',
    ]);
  });
});

describe('the key and the browser', () => {
  test('a key from the environment goes to the upstream only and is never written down', async () => {
    const key = 'sk-faultline-secret-0123456789';
    const previous = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = key;
    try {
      harness = await startHarness();
      const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
        headers: { 'content-type': 'application/json', 'x-faultline-run': 'keyed' },
        body: chatBody('hello'),
      });
      assert.equal(answer.status, 200);
      assert.equal(harness.upstream.requests[0]!.headers.authorization, `Bearer ${key}`);
      assert.equal(harness.upstream.requests[0]!.headers['x-faultline-run'], undefined);
      // The client's own key wins.
      await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer sk-client',
          'x-faultline-run': 'keyed',
        },
        body: chatBody('hello'),
      });
      assert.equal(harness.upstream.requests[1]!.headers.authorization, 'Bearer sk-client');
      await settled(harness);
      const written = [
        readFileSync(join(harness.runsFolder, 'keyed.json'), 'utf8'),
        readFileSync(join(harness.home, 'faultline.db')).toString('latin1'),
        harness.lines.join('\n'),
      ];
      for (const text of written) {
        assert.ok(!text.includes(key), 'the environment key is not written');
        assert.ok(!text.includes('sk-client'), "the client's key is not written");
      }
    } finally {
      if (previous === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = previous;
    }
  });

  test('unrecorded Anthropic paths go to the Anthropic upstream with the Anthropic key only', async () => {
    const saved = { openai: process.env.OPENAI_API_KEY, anthropic: process.env.ANTHROPIC_API_KEY };
    process.env.OPENAI_API_KEY = 'sk-openai-env';
    process.env.ANTHROPIC_API_KEY = 'sk-ant-env';
    const anthropic = await startWireServer();
    try {
      harness = await startHarness(undefined, { anthropicUpstream: anthropic.origin });
      const counted = await rawRequest(`${harness.proxy.url}/v1/messages/count_tokens`, {
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude', messages: [] }),
      });
      assert.equal(counted.status, 200);
      const listed = await rawRequest(`${harness.proxy.url}/v1/models`, {
        method: 'GET',
        headers: { 'x-api-key': 'sk-ant-client', 'anthropic-version': '2023-06-01' },
      });
      assert.equal(listed.status, 200);
      const openai = await rawRequest(`${harness.proxy.url}/v1/models`, { method: 'GET' });
      assert.equal(openai.status, 200);
      assert.deepEqual(
        anthropic.requests.map((r) => [r.path, r.headers['x-api-key'], r.headers.authorization]),
        [
          ['/v1/messages/count_tokens', 'sk-ant-env', undefined],
          ['/v1/models', 'sk-ant-client', undefined],
        ],
      );
      assert.deepEqual(
        harness.upstream.requests.map((r) => [
          r.path,
          r.headers['x-api-key'],
          r.headers.authorization,
        ]),
        [['/v1/models', undefined, 'Bearer sk-openai-env']],
      );
    } finally {
      await anthropic.close();
      for (const [name, value] of [
        ['OPENAI_API_KEY', saved.openai],
        ['ANTHROPIC_API_KEY', saved.anthropic],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  test('a foreign Host (DNS rebinding) and cross-site browser requests are refused', async () => {
    harness = await startHarness();
    const url = `${harness.proxy.url}/v1/chat/completions`;
    const body = chatBody('spend the key');
    const refused: Record<string, string>[] = [
      { host: 'evil.example', 'content-type': 'application/json' },
      { origin: 'https://evil.example', 'content-type': 'text/plain' },
      { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
    ];
    for (const headers of refused) {
      const answer = await rawRequest(url, { headers, body });
      assert.equal(answer.status, 403, JSON.stringify(headers));
    }
    assert.equal(harness.upstream.requests.length, 0, 'nothing reached the upstream');
    const allowed = await rawRequest(url, {
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.equal(allowed.status, 200);
  });

  test('binding off loopback needs a token', async () => {
    await assert.rejects(
      startProxy({
        upstream: 'http://127.0.0.1:9/v1',
        recorder: new Recorder(),
        host: '0.0.0.0',
        port: 0,
      }),
      /set a token with --token/,
    );
  });
});
