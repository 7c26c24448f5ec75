import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startHarness, type Harness } from '../../../test/recording-harness.js';
import { pieceLogprob } from '../../../test/wire-server.js';
import type { Trace } from '../../trace/model.js';
import { StreamStripper, stripWhole } from './logprobs.js';
import type { Injector } from './types.js';
import { recordingOf } from '../record/recording.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const messages = [{ role: 'user' as const, content: 'What is 2 + 2?' }];
/** The scripted server's reply to `messages`: "echo: What is 2 + 2?", one token a word. */
const TOKENS = ['echo: ', 'What ', 'is ', '2 ', '+ ', '2?'];
const expectedMean =
  Math.round(
    (TOKENS.reduce((sum, token, index) => sum + pieceLogprob(token, index), 0) / 6) * 1e4,
  ) / 1e4;

/** A client of the proxy (or, with `direct`, of the scripted server itself). */
function client(h: Harness, direct = false): OpenAI {
  return new OpenAI({
    baseURL: direct ? h.upstream.baseUrl : `${h.proxy.url}/v1`,
    apiKey: 'sk-test',
    maxRetries: 0,
  });
}

/**
 * The same Chat Completions call (`extra` added to the body) sent to the model server directly and
 * through the proxy, in run `runId`.
 */
async function directAndProxied(h: Harness, runId: string, extra: Record<string, unknown> = {}) {
  const body = { model: 'scripted', messages, ...extra };
  const direct = await client(h, true).chat.completions.create(body);
  const proxied = await client(h).chat.completions.create(body, {
    headers: { 'x-faultline-run': runId },
  });
  return { direct, proxied };
}

/** The run as recorded, once the recorder has written it. */
async function recorded(h: Harness, runId: string): Promise<Trace> {
  await h.recorder.close();
  return JSON.parse(readFileSync(join(h.runsFolder, `${runId}.json`), 'utf8')) as Trace;
}

/** The chunks of a streamed completion. */
async function chunks(
  openai: OpenAI,
  extra: { logprobs?: boolean } = {},
  runId?: string,
): Promise<OpenAI.ChatCompletionChunk[]> {
  const stream = await openai.chat.completions.create(
    { model: 'scripted', messages, stream: true, ...extra },
    runId ? { headers: { 'x-faultline-run': runId } } : {},
  );
  const all: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) all.push(chunk);
  return all;
}

/** A reply without the fields that differ on every call. */
const stable = ({ id: _id, created: _created, ...rest }: { id: string; created: number }) => rest;

/** Checks the step's summary: the figures are the least likely tokens, at their positions. */
function assertSummary(trace: Trace): void {
  const step = trace.steps.find((item) => item.role === 'agent')!;
  assert.ok(step.logprobs, 'the step keeps its log probabilities');
  assert.equal(step.logprobs.tokens, 6);
  assert.equal(step.logprobs.min, -2.5);
  assert.equal(step.logprobs.mean, expectedMean);
  assert.deepEqual(
    step.logprobs.lowest.slice(0, 2).map((token) => [token.token, token.position]),
    [
      ['2 ', 3],
      ['2?', 5],
    ],
  );
}

describe('faultline proxy --logprobs', () => {
  test('asks for them when the client did not, and the client gets the reply as without them', async () => {
    harness = await startHarness(undefined, { logprobs: true });
    const { direct, proxied } = await directAndProxied(harness, 'whole');
    assert.equal(harness.upstream.requests.at(-1)!.body.logprobs, true);
    assert.equal(proxied.choices[0]!.logprobs, null);
    assert.deepEqual(stable(proxied), stable(direct));
    const trace = await recorded(harness, 'whole');
    assertSummary(trace);
    const call = recordingOf(trace)!.calls[0]!;
    assert.doesNotMatch(
      call.response!.body,
      /"logprob"/,
      'the recording keeps what the client got',
    );
  });

  test('streaming: each event is stripped as it passes, the chunks are as without them', async () => {
    harness = await startHarness(undefined, { logprobs: true });
    const direct = await chunks(client(harness, true));
    const proxied = await chunks(client(harness), {}, 'streamed');
    assert.equal(harness.upstream.requests.at(-1)!.body.logprobs, true);
    assert.ok(proxied.length > 3);
    assert.deepEqual(proxied.map(stable), direct.map(stable));
    assert.ok(proxied.every((chunk) => chunk.choices.every((choice) => choice.logprobs === null)));
    assertSummary(await recorded(harness, 'streamed'));
  });

  test('a client that asked itself gets them untouched, streaming and not; both are recorded', async () => {
    harness = await startHarness(undefined, { logprobs: true });
    const asked = { logprobs: true, top_logprobs: 2 };
    const { direct, proxied } = await directAndProxied(harness, 'asked', asked);
    const [first, second] = harness.upstream.requests.slice(-2);
    assert.deepEqual(second!.body, first!.body, 'the request goes as the client sent it');
    assert.deepEqual(stable(proxied), stable(direct));
    assert.equal(proxied.choices[0]!.logprobs?.content?.length, 6);
    assertSummary(await recorded(harness, 'asked'));

    await harness.close();
    harness = await startHarness(undefined, { logprobs: true });
    const directChunks = await chunks(client(harness, true), { logprobs: true });
    const proxiedChunks = await chunks(client(harness), { logprobs: true }, 'asked-stream');
    assert.deepEqual(proxiedChunks.map(stable), directChunks.map(stable));
    assert.ok(proxiedChunks.some((chunk) => chunk.choices[0]?.logprobs?.content?.length));
    assertSummary(await recorded(harness, 'asked-stream'));
  });

  test('a reply an injector reads and leaves goes to the client without them too', async () => {
    const injector: Injector = {
      rewriteRequest: () => Promise.resolve(undefined),
      replacesReply: () => true,
      replaceReply: () => Promise.resolve(undefined),
    };
    harness = await startHarness(undefined, { logprobs: true, injector });
    const { direct, proxied } = await directAndProxied(harness, 'left');
    assert.deepEqual(stable(proxied), stable(direct));
    const directChunks = await chunks(client(harness, true));
    const proxiedChunks = await chunks(client(harness), {}, 'left-stream');
    assert.deepEqual(proxiedChunks.map(stable), directChunks.map(stable));
    assertSummary(await recorded(harness, 'left'));
  });

  test('an upstream that refuses logprobs is asked again as the client asked', async () => {
    harness = await startHarness(
      (request) =>
        request.body.logprobs === true
          ? { status: 400, body: { error: { message: 'logprobs are not supported' } } }
          : { text: 'fine', toolCalls: [] },
      { logprobs: true },
    );
    const proxied = await client(harness).chat.completions.create(
      { model: 'scripted', messages },
      { headers: { 'x-faultline-run': 'refused' } },
    );
    assert.equal(proxied.choices[0]!.message.content, 'fine');
    assert.deepEqual(
      harness.upstream.requests.map((request) => request.body.logprobs),
      [true, undefined],
    );
    const trace = await recorded(harness, 'refused');
    assert.equal(trace.steps[0]!.content, 'fine');
    assert.equal(trace.steps[0]!.logprobs, undefined);
    assert.equal(trace.steps[0]!.error, undefined);
  });

  test('without the flag the request is not changed and the step has none', async () => {
    harness = await startHarness();
    await client(harness).chat.completions.create(
      { model: 'scripted', messages },
      { headers: { 'x-faultline-run': 'plain' } },
    );
    assert.equal(harness.upstream.requests.at(-1)!.body.logprobs, undefined);
    const trace = await recorded(harness, 'plain');
    assert.equal(
      trace.steps.some((step) => step.logprobs),
      false,
    );
  });
});

describe('stripping log probabilities', () => {
  const chunk = (logprobs: unknown) =>
    JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, logprobs }] });
  const withTokens = chunk({ content: [{ token: 'a', logprob: -1 }] });

  test('a stream split anywhere, CRLF or LF, keeps its other lines and [DONE]', () => {
    const text = `event: x\r\ndata: ${withTokens}\r\n\r\n: comment\ndata: ${withTokens}\n\ndata: [DONE]\n\n`;
    const stripper = new StreamStripper();
    let out = '';
    for (let at = 0; at < text.length; at += 7) out += stripper.push(text.slice(at, at + 7));
    out += stripper.end();
    assert.equal(
      out,
      `event: x\ndata: ${chunk(null)}\r\n\r\n: comment\ndata: ${chunk(null)}\n\ndata: [DONE]\n\n`,
    );
  });

  test('a whole body: logprobs null; a body that is not JSON, or has none, is left as it came', () => {
    assert.equal(stripWhole(withTokens), chunk(null));
    assert.equal(stripWhole('not json'), 'not json');
    const spaced = '{ "choices": [ { "logprobs": null } ] }';
    assert.equal(stripWhole(spaced), spaced);
  });
});
