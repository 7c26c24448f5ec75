/**
 * OTLP/JSON decoding shared by the `otel` and `openinference` formats: the
 * `resourceSpans[].scopeSpans[].spans[]` envelope with `{key, value: {stringValue|intValue|...}}`
 * attributes, hex or base64 ids, and 64-bit times as decimal strings.
 */
import { z } from 'zod';
import { isObject, validate } from './format.js';

/**
 * An attribute's value is read by `decodeAnyValue`, which takes any JSON and keeps what is an
 * AnyValue, so it is not checked again by a schema: zod's recursive one cost 95 s and 1.4 GB on an
 * array of 5 million nulls, where decoding is one linear pass (depth is bounded by json-depth.ts).
 */
const anyValueSchema = z.unknown();
const keyValueSchema = z.object({ key: z.string(), value: anyValueSchema.nullish() });

const spanSchema = z.object({
  traceId: z.string().nullish(),
  spanId: z.string(),
  parentSpanId: z.string().nullish(),
  name: z.string().nullish(),
  startTimeUnixNano: z.union([z.string(), z.number()]).nullish(),
  endTimeUnixNano: z.union([z.string(), z.number()]).nullish(),
  attributes: z.array(keyValueSchema).nullish(),
  events: z
    .array(
      z.object({
        name: z.string().nullish(),
        timeUnixNano: z.union([z.string(), z.number()]).nullish(),
        attributes: z.array(keyValueSchema).nullish(),
      }),
    )
    .nullish(),
  status: z
    .object({ code: z.union([z.number(), z.string()]).nullish(), message: z.string().nullish() })
    .nullish(),
});

const envelopeSchema = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: z.array(keyValueSchema).nullish() }).nullish(),
      scopeSpans: z
        .array(
          z.object({
            scope: z.object({ name: z.string().nullish() }).nullish(),
            spans: z.array(z.unknown()).nullish(),
          }),
        )
        .nullish(),
    }),
  ),
});

/** A decoded OTLP span: attributes as a plain map of JS values. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  start: bigint;
  /** 0n when unknown. */
  end: bigint;
  attributes: Record<string, unknown>;
  events: { name: string; time: bigint; attributes: Record<string, unknown> }[];
  /** Set when the span's status is ERROR. */
  error?: string;
  resource: Record<string, unknown>;
  scope: string;
}

/** Decodes an OTLP AnyValue into a JS value. */
export function decodeAnyValue(value: unknown): unknown {
  if (!isObject(value)) return undefined;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (value.intValue !== undefined && value.intValue !== null) return Number(value.intValue);
  if (value.doubleValue !== undefined && value.doubleValue !== null)
    return Number(value.doubleValue);
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (typeof value.bytesValue === 'string') return value.bytesValue;
  if (isObject(value.arrayValue))
    return (Array.isArray(value.arrayValue.values) ? value.arrayValue.values : []).map(
      decodeAnyValue,
    );
  if (isObject(value.kvlistValue)) return decodeAttributes(value.kvlistValue.values);
  return undefined;
}

/** Decodes an OTLP attribute list into a map. */
export function decodeAttributes(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    if (isObject(item) && typeof item.key === 'string') out[item.key] = decodeAnyValue(item.value);
  }
  return out;
}

const toBigInt = (value: string | number | null | undefined): bigint => {
  if (value === null || value === undefined) return 0n;
  try {
    return BigInt(typeof value === 'number' ? Math.round(value) : value);
  } catch {
    return 0n;
  }
};

/**
 * True when some key or string value inside `value` passes `test`: what a search of the value's
 * JSON text for a quoted name finds, without writing that text (a copy as large as the file). A
 * walk with its own stack.
 */
export function someString(value: unknown, test: (text: string) => boolean): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (test(item)) return true;
    } else if (Array.isArray(item)) {
      for (const element of item as unknown[]) pending.push(element);
    } else if (typeof item === 'object' && item !== null) {
      for (const key in item) {
        if (test(key)) return true;
        pending.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** True for an OTLP/JSON export. */
export function isOtlp(value: unknown): value is { resourceSpans: unknown[] } {
  return isObject(value) && Array.isArray(value.resourceSpans);
}

/**
 * True for an OTLP/JSON export some span of which has an attribute whose key passes `test`: only
 * the spans' attribute keys are looked at, not every value, so a format's check stays cheap on
 * other exports.
 */
export function hasSpanAttribute(value: unknown, test: (key: string) => boolean): boolean {
  if (!isOtlp(value)) return false;
  for (const resource of value.resourceSpans) {
    const scopes =
      isObject(resource) && Array.isArray(resource.scopeSpans) ? resource.scopeSpans : [];
    for (const scope of scopes) {
      const spans = isObject(scope) && Array.isArray(scope.spans) ? scope.spans : [];
      for (const span of spans) {
        const attributes = isObject(span) && Array.isArray(span.attributes) ? span.attributes : [];
        for (const attribute of attributes)
          if (isObject(attribute) && typeof attribute.key === 'string' && test(attribute.key))
            return true;
      }
    }
  }
  return false;
}

/** `type: message` of the span's first `exception` event (OTel's record of a raised error). */
function exceptionText(events: OtlpSpan['events']): string {
  const exception = events.find((event) => event.name === 'exception')?.attributes;
  if (!exception) return '';
  const type = exception['exception.type'];
  const message = exception['exception.message'];
  return [type, message].filter((part) => typeof part === 'string' && part).join(': ');
}

/** All spans of an OTLP/JSON document, validated, in document order. */
export function decodeOtlp(value: unknown, context: { file: string; format: string }): OtlpSpan[] {
  const envelope = validate(envelopeSchema, value, context);
  const spans: OtlpSpan[] = [];
  envelope.resourceSpans.forEach((resourceSpans, resourceIndex) => {
    const resource = decodeAttributes(resourceSpans.resource?.attributes);
    (resourceSpans.scopeSpans ?? []).forEach((scopeSpans, scopeIndex) => {
      (scopeSpans.spans ?? []).forEach((raw, spanIndex) => {
        const prefix = `resourceSpans[${resourceIndex}].scopeSpans[${scopeIndex}].spans[${spanIndex}]`;
        const span = validate(spanSchema, raw, { ...context, prefix });
        const statusCode = span.status?.code;
        const failed = statusCode === 2 || statusCode === 'STATUS_CODE_ERROR';
        const attributes = decodeAttributes(span.attributes);
        const decoded: OtlpSpan = {
          traceId: span.traceId ?? '',
          spanId: span.spanId,
          name: span.name ?? '',
          start: toBigInt(span.startTimeUnixNano),
          end: toBigInt(span.endTimeUnixNano),
          attributes,
          events: (span.events ?? []).map((event) => ({
            name: event.name ?? '',
            time: toBigInt(event.timeUnixNano),
            attributes: decodeAttributes(event.attributes),
          })),
          resource,
          scope: scopeSpans.scope?.name ?? '',
        };
        if (span.parentSpanId) decoded.parentSpanId = span.parentSpanId;
        if (failed)
          decoded.error =
            span.status?.message ||
            exceptionText(decoded.events) ||
            String(attributes['error.type'] ?? 'error');
        spans.push(decoded);
      });
    });
  });
  return spans;
}
