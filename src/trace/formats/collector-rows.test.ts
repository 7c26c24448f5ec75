/**
 * Collector span rows are read by the same convention readers as OTLP/JSON: the shipped OTLP
 * fixtures, written as the ClickHouse exporter's rows (either casing, flat, JSON Lines or nested
 * in `child_spans`, maps as objects or as JSON text), import to the same steps.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES } from '../../../test/paths.js';
import { TraceFormatError } from '../../errors.js';
import { importRawInput, importTraceText } from '../load.js';
import type { Trace } from '../model.js';
import { decodeOtlp } from '../otlp.js';
import { detectFormat } from '../registry.js';

const fixture = (name: string) =>
  JSON.parse(readFileSync(join(FIXTURES, 'formats', name), 'utf8')) as unknown;

type Row = Record<string, unknown>;

/** A nanosecond time as ISO text to the nanosecond: `2026-05-01T10:00:00.020000000Z`. */
const isoNanos = (nanos: bigint) =>
  new Date(Number(nanos / 1_000_000n))
    .toISOString()
    .replace('Z', `${String(nanos % 1_000_000n).padStart(6, '0')}Z`);

/** An OTLP/JSON export as the exporter's PascalCase rows, times as ClickHouse writes them. */
function pascalRows(otlp: unknown): Row[] {
  return decodeOtlp(otlp, { file: 'x', format: 'x' }).map((span) => ({
    Timestamp: isoNanos(span.start).replace('T', ' ').replace('Z', ''),
    TraceId: span.traceId,
    SpanId: span.spanId,
    ParentSpanId: span.parentSpanId ?? '',
    SpanName: span.name,
    SpanKind: 'Internal',
    ServiceName: String(span.resource['service.name'] ?? ''),
    ResourceAttributes: span.resource,
    ScopeName: span.scope,
    SpanAttributes: Object.fromEntries(
      Object.entries(span.attributes).map(([key, value]) => [
        key,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]),
    ),
    // ClickHouse quotes 64-bit integers in JSON.
    Duration: String(span.end - span.start),
    StatusCode: span.error ? 'Error' : 'Unset',
    StatusMessage: span.error ?? '',
    'Events.Timestamp': span.events.map((event) => String(event.time)),
    'Events.Name': span.events.map((event) => event.name),
    'Events.Attributes': span.events.map((event) => event.attributes),
  }));
}

/** The same rows in the tools' snake_case, maps as JSON text, durations as numbers. */
function snakeRows(otlp: unknown): Row[] {
  return decodeOtlp(otlp, { file: 'x', format: 'x' }).map((span) => ({
    timestamp: isoNanos(span.start),
    trace_id: span.traceId,
    span_id: span.spanId,
    ...(span.parentSpanId ? { parent_span_id: span.parentSpanId } : {}),
    span_name: span.name,
    service_name: String(span.resource['service.name'] ?? ''),
    span_attributes: JSON.stringify(span.attributes),
    duration: Number(span.end - span.start),
    status_code: span.error ? 'STATUS_CODE_ERROR' : 'STATUS_CODE_UNSET',
    status_message: span.error ?? '',
    events: span.events.map((event) => ({
      timestamp: String(event.time),
      name: event.name,
      attributes: JSON.stringify(event.attributes),
    })),
  }));
}

/** Flat rows as a tree: each row's children in its `child_spans`, without their parent id. */
function nested(rows: readonly Row[]): Row[] {
  const ids = new Set(rows.map((row) => String(row.span_id)));
  const children = new Map<string, Row[]>();
  for (const row of rows) {
    const parent = ids.has(String(row.parent_span_id)) ? String(row.parent_span_id) : '';
    children.set(parent, [...(children.get(parent) ?? []), row]);
  }
  const build = (row: Row): Row => {
    const { parent_span_id: _parent, ...rest } = row;
    const below = children.get(String(row.span_id)) ?? [];
    return below.length > 0 ? { ...rest, child_spans: below.map(build) } : rest;
  };
  return (children.get('') ?? []).map(build);
}

async function read(value: unknown): Promise<Trace[]> {
  return importRawInput({ kind: 'json', value }, { file: 'rows.json', id: 'rows' });
}

/** What the convention reader decides: the steps, the question and the outcome. */
const essence = (trace: Trace) => ({
  id: trace.id,
  question: trace.question,
  outcome: trace.outcome,
  steps: trace.steps,
});

describe('collector span rows', () => {
  for (const [name, convention] of [
    ['otlp-genai-semconv.json', 'otel'],
    ['otel-events.json', 'otel'],
    ['openinference-otlp.json', 'openinference'],
  ] as const) {
    it(`reads ${name} as rows to the steps its OTLP form gives`, async () => {
      const otlp = fixture(name);
      const [expected] = await read(otlp);
      const pascal = pascalRows(otlp);
      const snake = snakeRows(otlp);
      const layouts: [string, unknown][] = [
        ['PascalCase list', pascal],
        ['ClickHouse FORMAT JSON', { meta: [], data: pascal, rows: pascal.length }],
        ['snake_case list', snake],
        ['child_spans tree', nested(snake)],
      ];
      for (const [layout, value] of layouts) {
        const traces = await read(value);
        assert.equal(traces.length, 1, layout);
        assert.equal(traces[0]!.format, 'collector-rows', layout);
        assert.equal(traces[0]!.metadata.convention, convention, layout);
        assert.deepEqual(essence(traces[0]!), essence(expected!), layout);
      }
      const lines = snake.map((row) => JSON.stringify(row)).join('\n');
      const [fromLines] = await importTraceText(lines, 'rows.jsonl');
      assert.deepEqual(essence(fromLines!), essence(expected!), 'JSON Lines');
    });
  }

  it('keeps each step’s span id, parent, start, duration, model and tokens', async () => {
    const [trace] = await read(fixture('collector-rows-clickhouse.json'));
    const call = trace!.steps.find((step) => step.span?.id === 'b000000000000005')!;
    assert.equal(call.timestamp, '2026-05-01T10:00:01.010Z');
    assert.deepEqual(call.span, {
      id: 'b000000000000005',
      parentId: 'b000000000000004',
      durationMs: 640,
      model: 'gpt-4o-2024-08-06',
      inputTokens: 150,
      outputTokens: 22,
    });
    const failed = trace!.steps.find((step) => step.span?.id === 'b000000000000006')!;
    assert.equal(failed.role, 'tool');
    assert.equal(failed.error, 'charges service timed out after 1.5 s');
  });

  it('reads one trace per trace id and times in every written form', async () => {
    const row = (traceId: string, spanId: string, timestamp: unknown) => ({
      trace_id: traceId,
      span_id: spanId,
      span_name: 'invoke_agent Writer',
      timestamp,
      duration: '2000000',
      span_attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Writer' },
      status_code: 'Error',
      status_message: 'failed',
    });
    const times = [
      '2026-05-01 10:00:00.250000000',
      '2026-05-01T12:00:00.250+02:00',
      1777629600.25,
      1777629600250,
      '1777629600250000',
      1777629600250000000,
    ];
    const traces = await read(times.map((time, index) => row(`t${index}`, `s${index}`, time)));
    assert.deepEqual(
      traces.map((trace) => [
        trace.id,
        trace.steps[0]!.timestamp,
        trace.steps[0]!.span?.durationMs,
      ]),
      times.map((_, index) => [`t${index}`, '2026-05-01T10:00:00.250Z', 2]),
    );
  });

  it('is not what other span exports are detected as', async () => {
    for (const name of [
      'otlp-genai-semconv.json',
      'openinference-otlp.json',
      'phoenix-rest-spans.json',
      'openai-agents-traces-ingest.json',
      'langsmith-runs.json',
      'langfuse-trace-export.json',
    ])
      assert.notEqual(detectFormat({ kind: 'json', value: fixture(name) })?.name, 'collector-rows');
  });

  it('names the row and column of a bad value', async () => {
    const rows = snakeRows(fixture('otlp-genai-semconv.json'));
    await assert.rejects(
      read(nested(rows).map((root) => ({ ...root, child_spans: [{ span_name: 'x' }] }))),
      (error: unknown) =>
        error instanceof TraceFormatError &&
        error.position === '[0].child_spans[0]' &&
        /names no span id/.test(error.problem),
    );
    await assert.rejects(
      read(rows.map((row, index) => (index === 2 ? { ...row, events: 'none' } : row))),
      (error: unknown) => error instanceof TraceFormatError && error.position === '[2].events',
    );
  });
});
