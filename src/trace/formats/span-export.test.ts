/**
 * A vendor's span export as shipped (`{trace_id, spans: [rows with nested child_spans]}`): read
 * without editing, forced formats that say what the file holds, and the same run sent live as
 * OTLP/JSON (as the OTLP intake hands it to the importers, src/live/store-run.ts), in an
 * exporter's order (a span after its children), reads to the same steps and agents.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES } from '../../../test/paths.js';
import { TraceFormatError } from '../../errors.js';
import { keyValues } from '../collector-values.js';
import { importRawInput, importTraceText } from '../load.js';

const MANAGED = join(FIXTURES, 'formats', 'span-export-smolagents-managed.json');

interface ExportRow {
  trace_id?: string;
  span_id: string;
  parent_span_id?: string | null;
  span_name: string;
  start_time: string;
  end_time: string;
  status_code: string;
  status_message: string;
  span_attributes: Record<string, unknown>;
  events: { timestamp: string; name: string; attributes: Record<string, unknown> }[];
  child_spans?: ExportRow[];
}

const nanos = (time: string) => String(BigInt(Date.parse(time)) * 1_000_000n);

/** The export's rows as the OTLP/JSON spans an SDK's exporter sends: each span once it ends. */
function asOtlp(traceId: string, rows: ExportRow[]) {
  const spans: Record<string, unknown>[] = [];
  const pending = [...rows];
  while (pending.length > 0) {
    const row = pending.pop()!;
    pending.push(...(row.child_spans ?? []));
    spans.push({
      traceId,
      spanId: row.span_id,
      ...(row.parent_span_id ? { parentSpanId: row.parent_span_id } : {}),
      name: row.span_name,
      startTimeUnixNano: nanos(row.start_time),
      endTimeUnixNano: nanos(row.end_time),
      attributes: keyValues(row.span_attributes),
      events: row.events.map((event) => ({
        name: event.name,
        timeUnixNano: nanos(event.timestamp),
        attributes: keyValues(event.attributes),
      })),
      status: row.status_code === 'Error' ? { code: 2, message: row.status_message } : { code: 1 },
    });
  }
  spans.sort((left, right) =>
    String(left.endTimeUnixNano).localeCompare(String(right.endTimeUnixNano)),
  );
  return { resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: 'x' }, spans }] }] };
}

describe("a vendor's span export", () => {
  it('reads the {trace_id, spans} wrapper as shipped, and the same run sent live alike', async () => {
    const text = readFileSync(MANAGED, 'utf8');
    const [shipped] = await importTraceText(text, MANAGED);
    assert.equal(shipped!.format, 'collector-rows');
    const exported = JSON.parse(text) as { trace_id: string; spans: ExportRow[] };
    const [live] = await importRawInput(
      { kind: 'json', value: asOtlp(exported.trace_id, exported.spans) },
      { file: `OTLP trace ${exported.trace_id}`, id: exported.trace_id },
    );
    assert.equal(live!.format, 'openinference');
    assert.deepEqual(live!.steps, shipped!.steps);
    assert.deepEqual(live!.agents, shipped!.agents);
    assert.deepEqual(
      shipped!.agents.filter((agent) => agent.role === 'agent').map((agent) => agent.name),
      ['manager', 'search_agent'],
    );
  });

  it('takes the trace id from the wrapper where the rows name none', async () => {
    const row = (id: string, kind: string, extra: Record<string, unknown> = {}) => ({
      span_id: id,
      span_name: id,
      start_time: '2026-05-04T10:00:00Z',
      span_attributes: { 'openinference.span.kind': kind, ...extra },
    });
    const text = JSON.stringify({
      trace_id: 'wrapped',
      spans: [
        {
          ...row('run', 'AGENT', { 'agent.name': 'solo' }),
          child_spans: [row('model', 'LLM', { 'llm.output_messages.0.message.content': 'hi' })],
        },
      ],
    });
    const [trace] = await importTraceText(text, 'export.json');
    assert.equal(trace!.id, 'wrapped');
    assert.deepEqual(
      trace!.steps.map((step) => `${step.agent}: ${step.content}`),
      ['solo: hi'],
    );
  });

  it('says what the file holds when a span format is forced on the wrong shape', async () => {
    const reject = (text: string, format: string, expected: RegExp) =>
      assert.rejects(importTraceText(text, 'x.json', { format }), (error: unknown) => {
        assert.ok(error instanceof TraceFormatError);
        assert.match(error.message, expected);
        return true;
      });
    await reject(
      '{"resourceSpans": [], "note": 1}',
      'collector-rows',
      /expected span rows .*; found one object with keys resourceSpans, note and no list of rows/,
    );
    await reject(
      readFileSync(MANAGED, 'utf8'),
      'openinference',
      /these are span rows .*read them with --format collector-rows/,
    );
  });
});
