/**
 * Span rows of the OpenTelemetry Collector's ClickHouse exporter (its `otel_traces` table) and of
 * the tools built on it: a JSON list of rows, JSON Lines (ClickHouse `JSONEachRow`, one row a
 * line), ClickHouse's `FORMAT JSON` answer (`{meta, data: [rows]}`), a vendor's span export
 * (`{trace_id, spans: [rows]}`, the wrapper's trace id for rows that name none), or trees whose rows
 * nest their children in `child_spans`. Columns are read in the exporter's PascalCase or the
 * tools' snake_case:
 *
 * - `TraceId`/`trace_id`; a nested row without one takes its parent's. One trace per trace id.
 * - `SpanId`/`span_id` (required), `ParentSpanId`/`parent_span_id` (a nested row's parent is the
 *   row it sits in when it names none), `SpanName`/`span_name`.
 * - `Timestamp`/`timestamp`/`start_time`: ClickHouse `DateTime64` text
 *   (`2026-05-01 10:00:00.123456789`, UTC unless it has a zone), ISO 8601, or an epoch number (or
 *   numeric text) in seconds, milliseconds, microseconds or nanoseconds, told apart by size.
 * - `Duration`/`duration`: nanoseconds, a number or numeric text; else `EndTime`/`end_time` less
 *   the start.
 * - `SpanAttributes`/`span_attributes`, `ResourceAttributes`/`resource_attributes`: a map as an
 *   object or as JSON text of one (ClickHouse maps hold every value as text, as the conventions'
 *   readers expect of JSON-valued attributes).
 * - `ServiceName`/`service_name` (as the resource's `service.name`), `ScopeName`/`scope_name`.
 * - `StatusCode`/`status_code` (`Error`, `STATUS_CODE_ERROR`, `ERROR` or 2 mark a failure) and
 *   `StatusMessage`/`status_message`.
 * - Events as the exporter's parallel columns `Events.Timestamp`, `Events.Name`,
 *   `Events.Attributes`, as `Events` holding those three lists, or as a list
 *   `Events`/`events` of `{Timestamp|timestamp, Name|name, Attributes|attributes}`.
 *
 * The rows are what the exporter wrote from OTLP spans; they are turned back into that OTLP/JSON
 * and read by the OTLP format whose attribute conventions they carry (OpenInference, else OTel
 * GenAI), so every convention is read by one reader whatever shape the spans came in. The trace
 * says which in `metadata.convention`. Where the rows are in the file is collector-rows-layout.ts.
 */
import { TraceFormatError } from '../../errors.js';
import { isObject, parseJsonOr, type ImportContext, type TraceFormat } from '../format.js';
import type { Trace } from '../model.js';
import type { RawInput } from '../read-input.js';
import { durationNanos, keyValues, nanosOfTime, statusCode } from '../collector-values.js';
import {
  collectRows,
  column,
  isRow,
  rowsOf,
  type FoundRows,
  type PlacedRow,
  type Row,
} from './collector-rows-layout.js';
import { openInferenceFormat } from './openinference.js';
import { otelFormat } from './otel.js';

const NAME = 'collector-rows';

/** The OTLP formats rows are read by, in the registry's detection order. */
const CONVENTIONS: readonly TraceFormat[] = [openInferenceFormat, otelFormat];

/** An attribute map written as an object or as JSON text of one. */
function attributesOf(
  value: string | Record<string, unknown> | null | undefined,
  where: { file: string; position: string },
): Record<string, unknown> {
  if (value === null || value === undefined || (typeof value === 'string' && !value.trim()))
    return {};
  const parsed = parseJsonOr(value);
  if (isObject(parsed)) return parsed;
  throw new TraceFormatError(
    where.file,
    'expected an attribute map: an object, or JSON text of one',
    { format: NAME, position: where.position },
  );
}

/** A row's events in any of the exporter's layouts, as OTLP events. */
function eventsOf(row: Row, where: { file: string; position: string }) {
  const at = (field: string) => ({ ...where, position: `${where.position}${field}` });
  const prefix = where.position ? '.' : '';
  const list = row.events ?? (Array.isArray(row.Events) ? row.Events : undefined);
  if (list)
    return list.map((event, index) => {
      const field = `${prefix}${row.events ? 'events' : 'Events'}[${index}]`;
      const attributes = column(event.Attributes, event.attributes);
      return {
        name: column(event.Name, event.name) ?? '',
        timeUnixNano: String(nanosOfTime(column(event.Timestamp, event.timestamp))),
        attributes: keyValues(attributesOf(attributes, at(`${field}.attributes`))),
      };
    });
  const columns = isObject(row.Events) ? row.Events : undefined;
  const names = row['Events.Name'] ?? columns?.Name ?? [];
  const times = row['Events.Timestamp'] ?? columns?.Timestamp ?? [];
  const maps = row['Events.Attributes'] ?? columns?.Attributes ?? [];
  return names.map((name, index) => ({
    name: name ?? '',
    timeUnixNano: String(nanosOfTime(times[index])),
    attributes: keyValues(attributesOf(maps[index], at(`${prefix}Events.Attributes[${index}]`))),
  }));
}

/** One row as the OTLP/JSON `resourceSpans` entry the exporter wrote it from. */
function resourceSpansOf(placed: PlacedRow, file: string) {
  const { row, position } = placed;
  const where = (field: string) => ({ file, position: position ? `${position}.${field}` : field });
  const attributesField = row.SpanAttributes !== undefined ? 'SpanAttributes' : 'span_attributes';
  const resourceField =
    row.ResourceAttributes !== undefined ? 'ResourceAttributes' : 'resource_attributes';
  const resource = attributesOf(
    column(row.ResourceAttributes, row.resource_attributes),
    where(resourceField),
  );
  const service = column(row.ServiceName, row.service_name);
  if (service && resource['service.name'] === undefined) resource['service.name'] = service;
  const start = nanosOfTime(column(row.Timestamp, row.timestamp, row.start_time));
  const end = nanosOfTime(column(row.EndTime, row.end_time));
  const duration =
    durationNanos(column(row.Duration, row.duration)) ??
    (start > 0n && end >= start ? end - start : undefined);
  const code = statusCode(column(row.StatusCode, row.status_code));
  const message = column(row.StatusMessage, row.status_message);
  const span = {
    traceId: placed.traceId,
    spanId: placed.spanId,
    ...(placed.parentId ? { parentSpanId: placed.parentId } : {}),
    name: column(row.SpanName, row.span_name) ?? '',
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start > 0n && duration !== undefined ? start + duration : 0n),
    attributes: keyValues(
      attributesOf(column(row.SpanAttributes, row.span_attributes), where(attributesField)),
    ),
    events: eventsOf(row, { file, position }),
    status: { code, ...(message ? { message } : {}) },
  };
  return {
    resource: { attributes: keyValues(resource) },
    scopeSpans: [{ scope: { name: column(row.ScopeName, row.scope_name) ?? '' }, spans: [span] }],
  };
}

/** One trace's rows read by the convention they carry. */
async function traceOf(
  rows: readonly PlacedRow[],
  context: ImportContext,
  id: string,
): Promise<Trace> {
  const first = rows[0]!;
  const input: RawInput = {
    kind: 'json',
    value: { resourceSpans: rows.map((row) => resourceSpansOf(row, context.file)) },
  };
  const convention = CONVENTIONS.find((format) => format.detect(input));
  const position = first.position ? { position: first.position } : {};
  if (!convention)
    throw new TraceFormatError(
      context.file,
      `no span of trace ${id} carries OpenInference (openinference.span.kind) or OTel GenAI (gen_ai.*) attributes; span rows are read through those conventions`,
      { format: NAME, ...position },
    );
  let traces: Trace[];
  try {
    traces = await convention.parse(input, { file: context.file, id });
  } catch (error) {
    if (!(error instanceof TraceFormatError)) throw error;
    // The OTLP envelope is faultline's own; what the user can act on is the trace's rows.
    const problem = /no steps to attribute/.test(error.problem)
      ? `no span of trace ${id} is an agent, model call or tool (${convention.name} attributes): there are no steps to attribute`
      : error.problem;
    throw new TraceFormatError(context.file, problem, { format: NAME, ...position, cause: error });
  }
  const trace = traces[0]!;
  const service = column(first.row.ServiceName, first.row.service_name);
  const metadata = {
    ...trace.metadata,
    // OpenInference's reader keeps no service; the row names it in a column of its own.
    ...(service && trace.metadata.service === undefined ? { service } : {}),
    convention: convention.name,
  };
  return { ...trace, format: NAME, metadata };
}

/** What a file that holds no span rows holds instead, for the forced format's error. */
function notRows(found: FoundRows | undefined): string {
  const expected =
    'expected span rows (a list of rows, {"data": [rows]}, {"trace_id": ..., "spans": [rows]} or JSON Lines of rows; a row has span_id and span_name)';
  if (found?.unwrapped)
    return `${expected}; found one object with keys ${Object.keys(found.unwrapped).slice(0, 8).join(', ') || '(none)'} and no list of rows`;
  return found ? `${expected}; the list of rows is empty` : expected;
}

export const collectorRowsFormat: TraceFormat = {
  name: NAME,
  description:
    "span rows: the OpenTelemetry Collector's (ClickHouse otel_traces) and vendors' span exports ({trace_id, spans}; flat, JSON Lines or nested child_spans)",
  detect(input) {
    const found = rowsOf(input);
    return found !== undefined && found.rows.length > 0 && isRow(found.rows[0]);
  },
  async parse(input, context) {
    const found = rowsOf(input);
    if (!found || found.rows.length === 0 || found.unwrapped)
      throw new TraceFormatError(context.file, notRows(found), { format: NAME });
    const rows: PlacedRow[] = [];
    found.rows.forEach((row, index) =>
      collectRows(row, found.position(index), { traceId: found.traceId ?? '' }, context.file, rows),
    );
    const byTrace = new Map<string, PlacedRow[]>();
    for (const row of rows) {
      const group = byTrace.get(row.traceId);
      if (group) group.push(row);
      else byTrace.set(row.traceId, [row]);
    }
    const traces: Trace[] = [];
    for (const [traceId, group] of byTrace)
      traces.push(
        await traceOf(
          group,
          context,
          traceId || (byTrace.size > 1 ? `${context.id}-${traces.length + 1}` : context.id),
        ),
      );
    return traces;
  },
};
