/**
 * Span rows as a collector-rows file holds them (collector-rows.ts): a row's columns in either
 * spelling, the file's layouts (a list, JSON Lines, ClickHouse's `FORMAT JSON` answer, one row),
 * and the rows nested in `child_spans`, each placed with its trace and its parent.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { isObject, itemPosition, JSON_LINES, validate } from '../format.js';
import type { RawInput } from '../read-input.js';

const NAME = 'collector-rows';

const text = z.string().nullish();
const time = z.union([z.string(), z.number()]).nullish();
const attributeMap = z.union([z.record(z.string(), z.unknown()), z.string()]).nullish();
const code = z.union([z.string(), z.number()]).nullish();

const eventSchema = z.object({
  Timestamp: time,
  timestamp: time,
  Name: text,
  name: text,
  Attributes: attributeMap,
  attributes: attributeMap,
});
const eventColumnsSchema = z.object({
  Timestamp: z.array(time).nullish(),
  Name: z.array(text).nullish(),
  Attributes: z.array(attributeMap).nullish(),
});

const rowSchema = z.object({
  TraceId: text,
  trace_id: text,
  SpanId: text,
  span_id: text,
  ParentSpanId: text,
  parent_span_id: text,
  SpanName: text,
  span_name: text,
  Timestamp: time,
  timestamp: time,
  start_time: time,
  end_time: time,
  EndTime: time,
  Duration: time,
  duration: time,
  ServiceName: text,
  service_name: text,
  ScopeName: text,
  scope_name: text,
  ResourceAttributes: attributeMap,
  resource_attributes: attributeMap,
  SpanAttributes: attributeMap,
  span_attributes: attributeMap,
  StatusCode: code,
  status_code: code,
  StatusMessage: text,
  status_message: text,
  Events: z.union([z.array(eventSchema), eventColumnsSchema]).nullish(),
  events: z.array(eventSchema).nullish(),
  'Events.Timestamp': z.array(time).nullish(),
  'Events.Name': z.array(text).nullish(),
  'Events.Attributes': z.array(attributeMap).nullish(),
  child_spans: z.array(z.unknown()).nullish(),
});
export type Row = z.infer<typeof rowSchema>;

/** A row as found, with where it is and what it takes from the row it is nested in. */
export interface PlacedRow {
  row: Row;
  position: string;
  spanId: string;
  traceId: string;
  parentId?: string;
}

/**
 * True for an object with the columns every span row has: a span name, and a trace or span id (a
 * row of a vendor's `{trace_id, spans}` export may leave the trace id to the wrapper).
 */
export const isRow = (value: unknown): boolean =>
  isObject(value) &&
  ('TraceId' in value || 'trace_id' in value || 'SpanId' in value || 'span_id' in value) &&
  ('SpanName' in value || 'span_name' in value);

/** The lists of rows a file may wrap its rows in: ClickHouse's `{meta, data}`, a vendor's `{trace_id, spans}`. */
const WRAPPERS = ['data', 'spans'] as const;

/** A file's top-level rows, how to name the place of each, and the trace id a wrapper gives them. */
export interface FoundRows {
  rows: unknown[];
  position: (index: number) => string;
  /** The wrapper's `trace_id`/`TraceId`, for rows that name none. */
  traceId?: string;
  /** The top-level object, when the file is one that is neither a row nor a wrapper of rows. */
  unwrapped?: Record<string, unknown>;
}

/** A file's top-level rows and how to name the place of each. */
export function rowsOf(input: RawInput): FoundRows | undefined {
  if (input.kind === 'jsonl')
    return { rows: input.records, position: (index) => itemPosition(JSON_LINES, index) };
  if (input.kind !== 'json') return undefined;
  const { value } = input;
  if (Array.isArray(value)) return { rows: value, position: (index) => `[${index}]` };
  if (!isObject(value)) return undefined;
  if (!isRow(value))
    for (const field of WRAPPERS) {
      const rows = value[field];
      if (!Array.isArray(rows)) continue;
      const traceId = column(value.trace_id, value.TraceId, value.traceId);
      return {
        rows,
        position: (index) => itemPosition(field, index),
        ...(typeof traceId === 'string' ? { traceId } : {}),
      };
    }
  return { rows: [value], position: () => '', ...(isRow(value) ? {} : { unwrapped: value }) };
}

/** The first of a column's spellings that holds a value (an empty id counts as none). */
export function column<Value>(...values: (Value | null | undefined)[]): Value | undefined {
  return values.find((value) => value !== null && value !== undefined && value !== '') ?? undefined;
}

/** Every row of the tree under `value`, parents before their children. */
export function collectRows(
  value: unknown,
  position: string,
  inherited: { traceId: string; parentId?: string },
  file: string,
  out: PlacedRow[],
): void {
  const row = validate(rowSchema, value, { file, format: NAME, prefix: position });
  const spanId = column(row.SpanId, row.span_id);
  if (spanId === undefined)
    throw new TraceFormatError(
      file,
      'the row names no span id (SpanId or span_id); every span row needs one',
      { format: NAME, ...(position ? { position } : {}) },
    );
  const traceId = column(row.TraceId, row.trace_id) ?? inherited.traceId;
  const parentId = column(row.ParentSpanId, row.parent_span_id) ?? inherited.parentId;
  out.push({ row, position, spanId, traceId, ...(parentId ? { parentId } : {}) });
  (row.child_spans ?? []).forEach((child, index) =>
    collectRows(
      child,
      itemPosition(position ? `${position}.child_spans` : 'child_spans', index),
      {
        traceId,
        parentId: spanId,
      },
      file,
      out,
    ),
  );
}
