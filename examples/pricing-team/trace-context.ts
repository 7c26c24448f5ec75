/**
 * A `fetch` that sends the W3C `traceparent` header an OpenTelemetry-instrumented HTTP client
 * sends: the whole app run is one trace (a span of the OpenTelemetry SDK's tracer), and each
 * request a child span of it. faultline's proxy groups calls into runs by that trace id, so runs of
 * the app at once stay apart without any header of faultline's (`--trace` in openai-agents.ts).
 */
import { context, trace, type Span } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';

/** The `traceparent` value of a span: `00-<trace id>-<span id>-<flags>`. */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/** A fetch whose requests are child spans of one run span, each carrying its `traceparent`. */
export function tracedFetch(name = 'pricing-team run'): typeof fetch {
  const tracer = new BasicTracerProvider().getTracer('pricing-team');
  const run = tracer.startSpan(name);
  const parent = trace.setSpan(context.active(), run);
  return async (input, init) => {
    const span = tracer.startSpan('POST', {}, parent);
    const headers = new Headers(init?.headers);
    headers.set('traceparent', traceparentOf(span));
    try {
      return await fetch(input, { ...init, headers });
    } finally {
      span.end();
    }
  };
}
