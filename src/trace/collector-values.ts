/**
 * Span row values as OTLP/JSON has them: times in nanoseconds since the epoch (ClickHouse
 * `DateTime64` text, ISO 8601, or epoch numbers of any unit), durations, status codes and
 * attribute maps. The collector-rows format turns its rows back into OTLP/JSON with these.
 */
import { isObject } from './format.js';
import { sortKeyOfTime } from './spans.js';

/** Nanoseconds of an epoch number in seconds, milliseconds, microseconds or nanoseconds. */
function nanosOfEpoch(value: number | bigint): bigint {
  if (typeof value === 'bigint') {
    if (value >= 10n ** 17n) return value;
    if (value >= 10n ** 14n) return value * 1000n;
    if (value >= 10n ** 11n) return value * 1_000_000n;
    return value * 1_000_000_000n;
  }
  if (!Number.isFinite(value) || value <= 0) return 0n;
  // A JSON number holds a time since 1970 to within a microsecond at best (nanoseconds to within a
  // few hundred, 2^53 being about 9e15): microseconds are kept, so that `.25` s is 250 ms.
  const toMicros = value >= 1e17 ? 1e-3 : value >= 1e14 ? 1 : value >= 1e11 ? 1e3 : 1e6;
  return BigInt(Math.round(value * toMicros)) * 1000n;
}

const CLICKHOUSE_TIME =
  /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?\s*(Z|[+-]\d\d:?\d\d)?$/i;

/** A row's start time in nanoseconds since the epoch; 0 when unknown. */
export function nanosOfTime(value: string | number | null | undefined): bigint {
  if (typeof value === 'number') return nanosOfEpoch(value);
  if (typeof value !== 'string') return 0n;
  const written = value.trim();
  if (/^\d+$/.test(written)) return nanosOfEpoch(BigInt(written));
  if (/^\d+\.\d+$/.test(written)) return nanosOfEpoch(Number(written));
  const match = CLICKHOUSE_TIME.exec(written);
  if (!match) return sortKeyOfTime(written);
  const zone = (match[4] ?? 'Z').replace(/^([+-]\d\d)(\d\d)$/, '$1:$2');
  const millis = Date.parse(`${match[1]}T${match[2]}${zone}`);
  if (!Number.isFinite(millis) || millis < 0) return 0n;
  return BigInt(millis) * 1_000_000n + BigInt((match[3] ?? '').padEnd(9, '0'));
}

/** A duration in nanoseconds, from a number or numeric text; undefined when it is neither. */
export function durationNanos(value: string | number | null | undefined): bigint | undefined {
  const number = typeof value === 'string' && value.trim() ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) return undefined;
  return typeof value === 'string' && /^\s*\d+\s*$/.test(value)
    ? BigInt(value.trim())
    : BigInt(Math.round(number));
}

/** An OTLP status code from the exporter's `Error`/`STATUS_CODE_ERROR`/2 spellings. */
export function statusCode(value: string | number | null | undefined): number {
  if (typeof value === 'number') return value;
  const name = (value ?? '')
    .trim()
    .toUpperCase()
    .replace(/^STATUS_CODE_/, '');
  return name === 'ERROR' ? 2 : name === 'OK' ? 1 : 0;
}

/** A JS value as an OTLP AnyValue (the inverse of otlp.ts's decodeAnyValue). */
function anyValue(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number')
    return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
  if (Array.isArray(value))
    return { arrayValue: { values: value.map((item) => anyValue(item) ?? {}) } };
  if (isObject(value)) return { kvlistValue: { values: keyValues(value) } };
  return undefined;
}

/** A map as an OTLP attribute list. */
export function keyValues(map: Record<string, unknown>): { key: string; value?: unknown }[] {
  return Object.entries(map).map(([key, value]) => {
    const encoded = anyValue(value);
    return encoded ? { key, value: encoded } : { key };
  });
}
