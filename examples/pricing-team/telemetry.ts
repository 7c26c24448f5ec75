/**
 * OpenTelemetry for the pricing team apps, set up as the sdk-trace-node docs show: a
 * `NodeTracerProvider` with a `BatchSpanProcessor` over the OTLP/HTTP protobuf exporter, which
 * reads the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * `OTEL_SERVICE_NAME`). `inRootSpan` wraps one app run in a span of the app's own, so every span
 * of the run shares one trace id (one run in faultline), and may mark the run's outcome on it
 * (`faultline.outcome`).
 */
import { context, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { EXPECTED_TOTAL } from './tools.js';

/** Starts tracing for this process; `shutdown()` flushes what is left. */
export function startTelemetry(): NodeTracerProvider {
  const provider = new NodeTracerProvider({
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return provider;
}

/** The instrumentation scope of the apps' root spans. */
export const ROOT_SCOPE = 'pricing-team';

/** Runs `work` inside a root span named `name`; `work` may set attributes on it. */
export async function inRootSpan<Value>(
  name: string,
  work: (span: Span) => Promise<Value>,
): Promise<Value> {
  const span = trace.getTracer(ROOT_SCOPE).startSpan(name);
  try {
    return await context.with(trace.setSpan(context.active(), span), () => work(span));
  } finally {
    span.end();
  }
}

/**
 * One run of the team (`run` returns its final answer; it is given the root span, for a framework
 * that takes its parent span explicitly) inside the app's root span; with `selfCheck` the span
 * says how the run ended, as an app that checks its answer would.
 */
export function inCheckedRootSpan(
  run: (root: Span) => Promise<string>,
  selfCheck: boolean,
): Promise<string> {
  return inRootSpan('pricing-team', async (root) => {
    const said = await run(root);
    if (selfCheck)
      root.setAttribute(
        'faultline.outcome',
        said.includes(`TOTAL: ${EXPECTED_TOTAL} USD`) ? 'passed' : 'failed',
      );
    return said;
  });
}
