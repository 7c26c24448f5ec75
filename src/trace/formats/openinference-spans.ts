/**
 * OpenInference spans as one flat shape, whichever envelope they came in (OTLP/JSON, from a
 * collector's rows too, or Phoenix's REST answer): attributes as a map of dotted keys, nested maps
 * flattened. Read by openinference.ts and openinference-agents.ts.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { isObject, validate } from '../format.js';
import { decodeOtlp, isOtlp } from '../otlp.js';
import { isRow, rowsOf } from './collector-rows-layout.js';
import type { RawInput } from '../read-input.js';
import { sortKeyOfTime } from '../spans.js';

const NAME = 'openinference';
/** The attribute that marks an OpenInference span. */
export const SPAN_KIND = 'openinference.span.kind';

/** One span with attributes already as a flat map, whichever envelope it came in. */
export interface FlatSpan {
  traceId: string;
  spanId: string;
  parentId?: string;
  name: string;
  start: bigint;
  end: bigint;
  attributes: Record<string, unknown>;
  error?: string;
}

const phoenixSchema = z.object({
  data: z.array(
    z.object({
      name: z.string().nullish(),
      context: z.object({ trace_id: z.string().nullish(), span_id: z.string() }),
      parent_id: z.string().nullish(),
      span_kind: z.string().nullish(),
      start_time: z.string().nullish(),
      end_time: z.string().nullish(),
      status_code: z.string().nullish(),
      status_message: z.string().nullish(),
      attributes: z.record(z.string(), z.unknown()).nullish(),
    }),
  ),
});

/** Phoenix may nest attributes (`{llm: {model_name}}`); flatten to dotted keys. */
function flatten(
  value: Record<string, unknown>,
  prefix = '',
  out: Record<string, unknown> = {},
): Record<string, unknown> {
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isObject(inner)) flatten(inner, path, out);
    else if (Array.isArray(inner) && inner.every(isObject))
      inner.forEach((item, index) => flatten(item, `${path}.${index}`, out));
    else out[path] = inner;
  }
  return out;
}

/** The spans of an OTLP/JSON or Phoenix REST document. */
export function flatSpans(input: RawInput, file: string): FlatSpan[] {
  if (input.kind !== 'json')
    throw new TraceFormatError(file, 'expected JSON spans', { format: NAME });
  if (isOtlp(input.value)) {
    return decodeOtlp(input.value, { file, format: NAME }).map((span) => ({
      traceId: span.traceId,
      spanId: span.spanId,
      ...(span.parentSpanId ? { parentId: span.parentSpanId } : {}),
      name: span.name,
      start: span.start,
      end: span.end,
      // A row's attribute map may nest (`{"llm": {"model_name": ...}}`), as Phoenix's does.
      attributes: Object.values(span.attributes).some(isObject)
        ? flatten(span.attributes)
        : span.attributes,
      ...(span.error ? { error: span.error } : {}),
    }));
  }
  const rows = rowsOf(input);
  if (rows && rows.rows.length > 0 && isRow(rows.rows[0]))
    throw new TraceFormatError(
      file,
      'these are span rows (span_id, span_name, span_attributes), not OTLP/JSON or Phoenix REST spans; read them with --format collector-rows, which reads their OpenInference attributes',
      { format: NAME },
    );
  const phoenix = validate(phoenixSchema, input.value, { file, format: NAME });
  return phoenix.data.map((span) => {
    const attributes = flatten(span.attributes ?? {});
    if (span.span_kind && !attributes[SPAN_KIND]) attributes[SPAN_KIND] = span.span_kind;
    return {
      traceId: span.context.trace_id ?? '',
      spanId: span.context.span_id,
      ...(span.parent_id ? { parentId: span.parent_id } : {}),
      name: span.name ?? '',
      start: sortKeyOfTime(span.start_time),
      end: sortKeyOfTime(span.end_time),
      attributes,
      ...(span.status_code === 'ERROR' ? { error: span.status_message || 'error' } : {}),
    };
  });
}

/** Collects `prefix.{i}.suffix` attributes in index order. */
export function indexed(
  attributes: Record<string, unknown>,
  prefix: string,
): Map<number, Record<string, unknown>> {
  const out = new Map<number, Record<string, unknown>>();
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(`${prefix}.`)) continue;
    const rest = key.slice(prefix.length + 1);
    const dot = rest.indexOf('.');
    const index = Number(dot === -1 ? rest : rest.slice(0, dot));
    if (!Number.isInteger(index)) continue;
    const entry = out.get(index) ?? {};
    entry[dot === -1 ? '' : rest.slice(dot + 1)] = value;
    out.set(index, entry);
  }
  return new Map([...out.entries()].sort((left, right) => left[0] - right[0]));
}
