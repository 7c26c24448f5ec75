/**
 * The trace of one run of spans, as the span importers that read a framework's own convention
 * (ai-sdk.ts, voltagent.ts) build it: the trace id, the outcome the spans mark (else failed when a
 * root span is ERROR), and the metadata every such run carries (the service, whether the outcome
 * was marked, the note when no step names an agent) beside the importer's own (a session id).
 */
import { TraceFormatError } from '../errors.js';
import { buildTrace, type DraftStep } from './build-trace.js';
import type { ImportContext } from './format.js';
import type { Trace } from './model.js';
import type { OtlpSpan } from './otlp.js';
import { markedOutcome } from './span-outcome.js';
import { noAgentNote } from './spans.js';

/** What the importer read: its steps (the task's step first, if any) and what they came from. */
export interface SpanRun {
  format: string;
  spans: readonly OtlpSpan[];
  question: string | undefined;
  /** Every step, the task's included. */
  steps: DraftStep[];
  /** The steps read from spans (for the note when none names an agent). */
  fromSpans: readonly DraftStep[];
  /** The importer's own metadata: keys whose value is empty or not a string are left out. */
  metadata?: Record<string, unknown>;
}

/** Builds the run's trace. */
export function spanRunTrace(run: SpanRun, context: ImportContext): Trace {
  const { spans } = run;
  const service = spans[0]?.resource['service.name'];
  const marked = markedOutcome(spans);
  const failed = spans.some((span) => span.error && !span.parentSpanId);
  const own = Object.entries(run.metadata ?? {}).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '',
  );
  return buildTrace({
    id: spans[0]?.traceId || context.id,
    format: run.format,
    source: context.file,
    ...(run.question ? { question: run.question } : {}),
    outcome: marked ?? (failed ? 'failure' : 'unknown'),
    steps: run.steps,
    metadata: {
      ...noAgentNote(run.fromSpans),
      ...(typeof service === 'string' && service ? { service } : {}),
      ...(marked ? { outcomeMarked: true } : {}),
      ...Object.fromEntries(own),
    },
  });
}

/** Refuses a run of spans none of which is a step, saying how many spans were read. */
export function requireSpanSteps(
  steps: readonly unknown[],
  spans: readonly OtlpSpan[],
  context: ImportContext,
  format: string,
): void {
  if (steps.length > 0) return;
  throw new TraceFormatError(
    context.file,
    `${spans.length === 1 ? 'the one span is not' : `none of the ${spans.length} spans is`} a model call, tool run or reply: there are no steps to attribute`,
    { format, position: 'resourceSpans' },
  );
}
