/**
 * Live ingest end to end: an agent run traced with the OpenTelemetry JS SDK (GenAI semantic
 * conventions: invoke_agent, chat, execute_tool), exported with the official OTLP/HTTP exporters
 * (protobuf to the `--otlp-port` listener, JSON to the page's port) to a running server, appears as
 * a run with its span ids kept, is attributed when it failed, and shares the outcome API with
 * proxied runs. The receiver's answers (415, 400, 413, gzip, token) are checked with plain fetch.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Hono } from 'hono';
import { tracedRun } from '../../test/otel-run.js';
import { LiveIngest } from '../live/ingest.js';
import { decodeTraceRequest, encodeTraceRequest } from '../live/otlp-proto.js';
import { otlpRoutes } from './otlp-routes.js';
import { startServer } from './serve.js';
import { eventually } from '../../test/eventually.js';

describe('live ingest of OpenTelemetry spans', () => {
  let home = '';
  let server: Awaited<ReturnType<typeof startServer>>;
  const api = async <Body>(path: string, init?: RequestInit) => {
    const response = await fetch(new URL(path, server.state.url), init);
    return { status: response.status, body: (await response.json()) as Body };
  };
  /** The run once it is stored, with its trace. */
  const storedRun = (runId: string) =>
    eventually(async () => {
      const { status, body } = await api<{ run: { traceId: string; outcome: string } }>(
        `/api/runs/${runId}`,
      );
      return status === 200 ? body.run : undefined;
    });
  const analysesOf = (traceId: string) =>
    api<{
      analyses: {
        method: string;
        result: { agent: string | null; spectrum?: { runs: Record<string, number> } };
      }[];
    }>(`/api/analyses?trace=${traceId}`).then(({ body }) => body.analyses);

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-otlp-'));
    server = await startServer({
      home,
      host: '127.0.0.1',
      port: 0,
      otlpPort: 0,
      workers: 1,
      live: { quietMs: 300 },
    });
  });
  after(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  for (const [name, exporter] of [
    ['protobuf on the OTLP port', () => new ProtoExporter({ url: server.state.otlpUrl! })],
    ['JSON on the page port', () => new JsonExporter({ url: `${server.state.url}v1/traces` })],
  ] as const) {
    it(`stores and attributes a failed run sent as ${name}, span ids kept`, async () => {
      const sent = await tracedRun(exporter(), { fail: true });
      const analyses = await eventually(async () => {
        const found = await storedRun(sent.traceId).then((run) => analysesOf(run.traceId));
        return found.length > 0 ? found : undefined;
      });
      const seconds = (Date.now() - sent.rootEnded) / 1000;
      // The goal is two seconds; the bound leaves room for a loaded test machine.
      assert.ok(seconds < 10, `attributed ${seconds.toFixed(2)} s after the root span ended`);
      assert.equal(analyses[0]!.method, 'offline');
      assert.ok(analyses[0]!.result.agent, 'the analysis names an agent');
      const run = await storedRun(sent.traceId);
      assert.equal(run.outcome, 'failure');
      const { body } = await api<{ trace: { steps: { agent: string; span?: { id: string } }[] } }>(
        `/api/traces/${run.traceId}`,
      );
      const stepSpans = body.trace.steps.flatMap((step) => (step.span ? [step.span.id] : []));
      assert.ok(stepSpans.length >= 3, `steps with spans: ${stepSpans.length}`);
      for (const id of stepSpans) assert.ok(sent.spanIds.includes(id), `span ${id} was sent`);
      assert.ok(body.trace.steps.some((step) => step.agent === 'Researcher'));
      const listed = await api<{
        runs: { runId: string; verdict: { agent: string | null } | null }[];
        total: number;
      }>('/api/runs');
      const entry = listed.body.runs.find((candidate) => candidate.runId === sent.traceId);
      assert.ok(entry?.verdict, 'the run is listed with its verdict');
      const blame = await api<{ agents: { agent: string; thisWeek: number }[] }>('/api/runs/blame');
      const blamed = blame.body.agents.find((row) => row.agent === entry.verdict!.agent);
      assert.ok(blamed && blamed.thisWeek >= 1, 'the blamed agent is counted this week');
    });
  }

  it('stores a run without errors unattributed; marking it failed attributes it', async () => {
    const sent = await tracedRun(new JsonExporter({ url: `${server.state.url}v1/traces` }), {
      fail: false,
    });
    const run = await storedRun(sent.traceId);
    assert.equal(run.outcome, 'unknown');
    assert.equal((await analysesOf(run.traceId)).length, 0);
    const marked = await api<{ run: { outcome: string }; analysis: { method: string } | null }>(
      `/api/runs/${sent.traceId}/outcome`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcome: 'failed' }),
      },
    );
    assert.equal(marked.status, 200);
    assert.equal(marked.body.run.outcome, 'failure');
    assert.equal(marked.body.analysis?.method, 'offline');
  });

  it('attributes a failed run by the combined verdict once a run of its task passed', async () => {
    const exporter = () => new JsonExporter({ url: `${server.state.url}v1/traces` });
    // A task of its own, so that the runs of the tests above are not among its runs.
    const task = 'booking-after-a-pass';
    const passing = await tracedRun(exporter(), { fail: false, task });
    await storedRun(passing.traceId);
    const marked = await api<{ run: { outcome: string } }>(`/api/runs/${passing.traceId}/outcome`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'passed' }),
    });
    assert.equal(marked.body.run.outcome, 'success');
    const failing = await tracedRun(exporter(), { fail: true, task });
    const analyses = await eventually(async () => {
      const found = await storedRun(failing.traceId).then((run) => analysesOf(run.traceId));
      return found.length > 0 ? found : undefined;
    });
    assert.equal(analyses[0]!.method, 'combined');
    assert.ok(analyses[0]!.result.agent, 'the verdict names an agent');
    assert.deepEqual(analyses[0]!.result.spectrum?.runs, { failing: 1, passing: 1, unknown: 0 });
  });

  it('answers as OTLP says: 415, 400, gzip, an empty response in the same encoding', async () => {
    const post = (body: string | Uint8Array, headers: Record<string, string>) =>
      fetch(server.state.otlpUrl!, { method: 'POST', body, headers });
    assert.equal((await post('x', { 'content-type': 'text/plain' })).status, 415);
    const garbage = await post(new Uint8Array([0xff, 0xff, 0xff]), {
      'content-type': 'application/x-protobuf',
    });
    assert.equal(garbage.status, 400);
    const badJson = await post('{', { 'content-type': 'application/json' });
    assert.equal(badJson.status, 400);
    assert.match(((await badJson.json()) as { message: string }).message, /not valid JSON/);
    const empty = await post(gzipSync('{"resourceSpans":[]}'), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    assert.equal(empty.status, 200);
    assert.deepEqual(await empty.json(), {});
    const proto = await post(new Uint8Array(), { 'content-type': 'application/x-protobuf' });
    assert.equal(proto.status, 200);
    assert.equal(proto.headers.get('content-type'), 'application/x-protobuf');
    assert.equal((await proto.arrayBuffer()).byteLength, 0);
    const page = await fetch(new URL('/api/health', server.state.otlpUrl));
    assert.equal(page.status, 404, 'the OTLP port serves spans only');
  });
});

describe('the OTLP receiver in-process', () => {
  const span = (traceId: string, spanId: string, parentSpanId?: string) => ({
    traceId,
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name: 'step',
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000000100000000',
  });
  const exportOf = (spans: unknown[]) =>
    JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans }] }] });

  it('refuses a body over the limit (413) and a run over its span cap, in the log', async () => {
    const lines: string[] = [];
    const stored: string[] = [];
    const ingest = new LiveIngest({
      quietMs: 10,
      maxSpansPerRun: 3,
      log: (line) => lines.push(line),
      process: async (run) => {
        stored.push(run.traceId);
      },
    });
    const app = new Hono().route('/', otlpRoutes(ingest, { maxBodyBytes: 2000 }));
    const post = (body: string) =>
      app.request('/v1/traces', {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
    assert.equal((await post('x'.repeat(3000))).status, 413);
    const big = 'a'.repeat(32);
    const answer = await post(
      exportOf([span(big, '1'), span(big, '2', '1'), span(big, '3', '1'), span(big, '4', '1')]),
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), {
      partialSuccess: {
        rejectedSpans: '4',
        errorMessage: '4 spans belong to runs that were closed or too large',
      },
    });
    assert.ok(lines.some((line) => /error: live: run a+ has more than 3 spans/.test(line)));
    const small = 'b'.repeat(32);
    assert.equal((await post(exportOf([span(small, '1'), span(small, '2', '1')]))).status, 200);
    await eventually(async () => (stored.length > 0 ? true : undefined), 5);
    assert.deepEqual(stored, [small]);
    assert.equal(ingest.stats().spansHeld, 0);
    await ingest.close();
  });

  it('closes a run whose root never comes after the idle timeout', async () => {
    const lines: string[] = [];
    const stored: string[] = [];
    const ingest = new LiveIngest({
      quietMs: 10,
      idleTimeoutMs: 50,
      tickMs: 10,
      log: (line) => lines.push(line),
      process: async (run) => {
        stored.push(`${run.traceId} ${run.closedBy}`);
      },
    });
    ingest.add(JSON.parse(exportOf([span('c'.repeat(32), '2', '1')])) as never);
    await eventually(async () => (stored.length > 0 ? true : undefined), 5);
    assert.deepEqual(stored, [`${'c'.repeat(32)} idle`]);
    assert.ok(lines.some((line) => /without its root span/.test(line)));
    await ingest.close();
  });

  it('decodes protobuf ids as hex and 64-bit numbers as decimal strings', () => {
    const sent = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  ...span('0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'),
                  attributes: [
                    { key: 'gen_ai.usage.input_tokens', value: { intValue: '9007199254740993' } },
                  ],
                  status: { code: 2, message: 'boom' },
                },
              ],
            },
          ],
        },
      ],
    };
    const document = decodeTraceRequest(encodeTraceRequest(sent)) as {
      resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[];
    };
    const decoded = document.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    assert.equal(decoded.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(decoded.spanId, 'b7ad6b7169203331');
    assert.equal(decoded.startTimeUnixNano, '1700000000000000000');
    assert.deepEqual(
      decoded.attributes,
      sent.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.attributes,
    );
    assert.deepEqual(decoded.status, { code: 2, message: 'boom' });
  });
});
