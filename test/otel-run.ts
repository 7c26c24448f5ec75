/**
 * A traced agent run for the live-ingest tests: spans made with the OpenTelemetry JS SDK in the
 * GenAI semantic conventions and sent with whichever OTLP exporter the test gives.
 */
import { context as otelContext, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { TASK_ATTRIBUTE } from '../src/trace/task.js';

const message = (role: string, text: string) =>
  JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }]);

/** What one traced run sent. */
export interface SentRun {
  traceId: string;
  spanIds: string[];
  /** When the root span ended (ms since the epoch). */
  rootEnded: number;
}

/**
 * A two-agent run in GenAI conventions: an orchestrator asks a researcher, whose tool call fails,
 * and the run ends in error (or, with `fail: false`, without one); `task` names its task on the
 * root span (`faultline.task`), else its task is its text's.
 */
export async function tracedRun(
  exporter: SpanExporter,
  options: { fail: boolean; task?: string },
): Promise<SentRun> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'travel-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('faultline-test');
  const spanIds: string[] = [];
  const start = (name: string, attributes: Record<string, string | number>, parent?: Span) => {
    const span = tracer.startSpan(
      name,
      { attributes },
      parent ? trace.setSpan(otelContext.active(), parent) : otelContext.active(),
    );
    spanIds.push(span.spanContext().spanId);
    return span;
  };
  const root = start('invoke_agent Orchestrator', {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'Orchestrator',
    ...(options.task ? { [TASK_ATTRIBUTE]: options.task } : {}),
  });
  const plan = start(
    'chat gpt-4o',
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.agent.name': 'Orchestrator',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.input.messages': message('user', 'Book the cheapest flight from Paris to Rome.'),
      'gen_ai.output.messages': message(
        'assistant',
        'Researcher, find flights from Paris to Rome.',
      ),
    },
    root,
  );
  plan.end();
  const researcher = start(
    'invoke_agent Researcher',
    { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Researcher' },
    root,
  );
  const search = start(
    'chat gpt-4o',
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.agent.name': 'Researcher',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.input.messages': message('user', 'Find flights from Paris to Rome.'),
      'gen_ai.output.messages': message(
        'assistant',
        'I will search for flights from Paris to Berlin on the wrong date.',
      ),
    },
    researcher,
  );
  search.end();
  const tool = start(
    'execute_tool search_flights',
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search_flights',
      'gen_ai.tool.call.arguments': '{"from":"PAR","to":"BER"}',
      'gen_ai.tool.call.result': 'error: no such route on that date',
    },
    researcher,
  );
  if (options.fail) tool.setStatus({ code: SpanStatusCode.ERROR, message: 'no such route' });
  tool.end();
  researcher.end();
  if (options.fail) root.setStatus({ code: SpanStatusCode.ERROR, message: 'the booking failed' });
  root.end();
  const rootEnded = Date.now();
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId: root.spanContext().traceId, spanIds, rootEnded };
}
