/**
 * Spans as they arrive, grouped into runs by trace id. A run is complete once its root span (the
 * one without a parent) has arrived, which an exporter sends only after it ended, and no span of
 * the run has come for a quiet period; a run whose root never comes is closed after an idle
 * timeout. Memory is bounded twice: a run past its span cap is dropped (with one clear log line,
 * and its later spans too), and when the buffer as a whole holds its cap an export is refused so
 * the exporter retries later. Nothing here parses conventions: a completed run leaves as the OTLP/
 * JSON document its spans came in, for the importers (store-run.ts).
 */

/** An OTLP/JSON export as far as the buffer reads it. */
export interface OtlpDocument {
  resourceSpans: unknown[];
}

/** A run whose spans are all in. */
export interface CompletedRun {
  /** The OTLP trace id (hex). */
  traceId: string;
  /** The run's spans, as one OTLP/JSON document with their resources and scopes. */
  document: OtlpDocument;
  spans: number;
  /** True when the root span or an agent span ended with status ERROR. */
  failed: boolean;
  /** `idle` when the root span never came and the run was closed after the idle timeout. */
  closedBy: 'root' | 'idle';
}

/** Settings of the buffer. */
export interface SpanBufferOptions {
  /** How long after the root span and the last span a run is complete (default 1 s). */
  quietMs?: number;
  /** A run with no new span for this long is closed even without its root (default 5 min). */
  idleTimeoutMs?: number;
  /** Spans one run may have; a larger run is dropped (default 10,000). */
  maxSpansPerRun?: number;
  /** Spans held in all, waiting runs and runs being stored; more are refused (default 200,000). */
  maxBufferedSpans?: number;
  /** Called for each completed run; the buffer holds its spans until `release(run)`. */
  onComplete: (run: CompletedRun) => void;
  log: (line: string) => void;
  /** The clock (tests). */
  now?: () => number;
}

/** What an export came to. */
export type AddResult =
  | { status: 'accepted'; spans: number; rejected: number; message?: string }
  | { status: 'full'; message: string };

interface Group {
  resource: unknown;
  scope: unknown;
  spans: unknown[];
}

interface PendingRun {
  traceId: string;
  groups: Group[];
  spans: number;
  rootSeen: boolean;
  failed: boolean;
  lastAt: number;
}

/** Trace ids remembered after their run closed or was dropped, so late spans are recognised. */
const MAX_CLOSED_IDS = 20_000;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first string value of an attribute in an OTLP/JSON attribute list. */
function attribute(span: Record<string, unknown>, key: string): string | undefined {
  if (!Array.isArray(span.attributes)) return undefined;
  for (const item of span.attributes as unknown[]) {
    if (isRecord(item) && item.key === key && isRecord(item.value)) {
      const value = item.value.stringValue;
      return typeof value === 'string' ? value : undefined;
    }
  }
  return undefined;
}

/** Status ERROR, as an integer (protobuf, OTLP/JSON) or the enum's name. */
const isError = (span: Record<string, unknown>) =>
  isRecord(span.status) && (span.status.code === 2 || span.status.code === 'STATUS_CODE_ERROR');

/**
 * An agent's span in the conventions the importers read: GenAI's `invoke_agent`, OpenInference's
 * AGENT kind, Langfuse's agent observation, an OpenAI Agents agent span.
 */
function isAgentSpan(span: Record<string, unknown>): boolean {
  return (
    attribute(span, 'gen_ai.operation.name') === 'invoke_agent' ||
    attribute(span, 'openinference.span.kind') === 'AGENT' ||
    attribute(span, 'langfuse.observation.type') === 'agent' ||
    attribute(span, 'openai.agents.span_type') === 'agent' ||
    (typeof span.name === 'string' && span.name.startsWith('invoke_agent'))
  );
}

/** A span id that is set: OTLP/JSON writes an unset parent as "" or leaves it out. */
const hasParent = (span: Record<string, unknown>) =>
  typeof span.parentSpanId === 'string' &&
  span.parentSpanId.length > 0 &&
  !/^0+$/.test(span.parentSpanId);

/** Spans grouped into runs until each is complete. */
export class SpanBuffer {
  private readonly runs = new Map<string, PendingRun>();
  /** Closed or dropped trace ids, oldest first (a Map keeps insertion order). */
  private readonly closed = new Map<string, 'closed' | 'dropped'>();
  private held = 0;
  private readonly quietMs: number;
  private readonly idleTimeoutMs: number;
  private readonly maxSpansPerRun: number;
  private readonly maxBufferedSpans: number;
  private readonly now: () => number;

  constructor(private readonly options: SpanBufferOptions) {
    this.quietMs = options.quietMs ?? 1000;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 5 * 60_000;
    this.maxSpansPerRun = options.maxSpansPerRun ?? 10_000;
    this.maxBufferedSpans = options.maxBufferedSpans ?? 200_000;
    this.now = options.now ?? Date.now;
  }

  /** Spans held now: in waiting runs and in completed runs not yet released. */
  get heldSpans(): number {
    return this.held;
  }

  /** Runs waiting for their spans. */
  get waitingRuns(): number {
    return this.runs.size;
  }

  /**
   * Takes an export's spans into their runs. Throws a TypeError naming the first span that has no
   * trace or span id; refuses the whole export (`full`) when the buffer is at its cap.
   */
  add(document: OtlpDocument): AddResult {
    const batches = this.split(document);
    let count = 0;
    for (const batch of batches.values()) count += batch.spans;
    if (count > 0 && this.held + count > this.maxBufferedSpans)
      return {
        status: 'full',
        message: `faultline holds ${this.held} spans waiting to be stored; try again shortly`,
      };
    const now = this.now();
    let rejected = 0;
    const late: string[] = [];
    for (const [traceId, batch] of batches) {
      const previously = this.closed.get(traceId);
      if (previously) {
        rejected += batch.spans;
        if (previously === 'closed') late.push(traceId);
        continue;
      }
      let run = this.runs.get(traceId);
      if (!run) {
        run = { traceId, groups: [], spans: 0, rootSeen: false, failed: false, lastAt: now };
        this.runs.set(traceId, run);
      }
      if (run.spans + batch.spans > this.maxSpansPerRun) {
        rejected += batch.spans + run.spans;
        this.drop(run);
        continue;
      }
      run.groups.push(...batch.groups);
      run.spans += batch.spans;
      run.rootSeen ||= batch.rootSeen;
      run.failed ||= batch.failed;
      run.lastAt = now;
      this.held += batch.spans;
    }
    if (late.length > 0)
      this.options.log(
        `live: ${late.length} run(s) got spans after they were closed (trace ${late[0]}); those spans were not kept: raise the quiet period (--otlp-quiet) if the agent ends its root span early`,
      );
    return {
      status: 'accepted',
      spans: count - rejected,
      rejected,
      ...(rejected > 0
        ? { message: `${rejected} spans belong to runs that were closed or too large` }
        : {}),
    };
  }

  /** Completes the runs whose time has come; the server calls it on a timer. */
  tick(): void {
    const now = this.now();
    for (const run of this.runs.values()) {
      const quiet = now - run.lastAt;
      if (run.rootSeen && quiet >= this.quietMs) this.complete(run, 'root');
      else if (quiet >= this.idleTimeoutMs) this.complete(run, 'idle');
    }
  }

  /** Completes every waiting run now (shutdown). */
  flush(): void {
    for (const run of this.runs.values()) this.complete(run, run.rootSeen ? 'root' : 'idle');
  }

  /** Frees a completed run's share of the cap once it is stored (or given up on). */
  release(run: CompletedRun): void {
    this.held = Math.max(0, this.held - run.spans);
  }

  private complete(run: PendingRun, closedBy: CompletedRun['closedBy']): void {
    this.runs.delete(run.traceId);
    this.remember(run.traceId, 'closed');
    const document: OtlpDocument = {
      resourceSpans: run.groups.map((group) => ({
        resource: group.resource,
        scopeSpans: [{ scope: group.scope, spans: group.spans }],
      })),
    };
    if (closedBy === 'idle')
      this.options.log(
        `live: run ${run.traceId} closed after ${Math.round(this.idleTimeoutMs / 1000)} s without its root span (${run.spans} spans)`,
      );
    this.options.onComplete({
      traceId: run.traceId,
      document,
      spans: run.spans,
      failed: run.failed,
      closedBy,
    });
  }

  private drop(run: PendingRun): void {
    this.runs.delete(run.traceId);
    this.held = Math.max(0, this.held - run.spans);
    this.remember(run.traceId, 'dropped');
    this.options.log(
      `error: live: run ${run.traceId} has more than ${this.maxSpansPerRun} spans and was dropped (it is not stored; raise the cap with --otlp-max-run-spans)`,
    );
  }

  private remember(traceId: string, how: 'closed' | 'dropped'): void {
    this.closed.set(traceId, how);
    if (this.closed.size > MAX_CLOSED_IDS) {
      const oldest = this.closed.keys().next().value;
      if (oldest !== undefined) this.closed.delete(oldest);
    }
  }

  /** An export's spans by trace id, each run's share kept with its resource and scope. */
  private split(
    document: OtlpDocument,
  ): Map<string, { groups: Group[]; spans: number; rootSeen: boolean; failed: boolean }> {
    const batches = new Map<
      string,
      { groups: Group[]; spans: number; rootSeen: boolean; failed: boolean }
    >();
    document.resourceSpans.forEach((resourceSpans, resourceIndex) => {
      if (!isRecord(resourceSpans)) return;
      const scopes = Array.isArray(resourceSpans.scopeSpans) ? resourceSpans.scopeSpans : [];
      (scopes as unknown[]).forEach((scopeSpans, scopeIndex) => {
        if (!isRecord(scopeSpans) || !Array.isArray(scopeSpans.spans)) return;
        // One group per run and scope of this export.
        const groupOf = new Map<string, Group>();
        (scopeSpans.spans as unknown[]).forEach((span, spanIndex) => {
          if (
            !isRecord(span) ||
            typeof span.traceId !== 'string' ||
            span.traceId.length === 0 ||
            typeof span.spanId !== 'string'
          )
            throw new TypeError(
              `resourceSpans[${resourceIndex}].scopeSpans[${scopeIndex}].spans[${spanIndex}] has no traceId or spanId`,
            );
          const traceId = span.traceId.toLowerCase();
          let batch = batches.get(traceId);
          if (!batch) {
            batch = { groups: [], spans: 0, rootSeen: false, failed: false };
            batches.set(traceId, batch);
          }
          let group = groupOf.get(traceId);
          if (!group) {
            group = { resource: resourceSpans.resource, scope: scopeSpans.scope, spans: [] };
            groupOf.set(traceId, group);
            batch.groups.push(group);
          }
          group.spans.push(span);
          batch.spans += 1;
          const root = !hasParent(span);
          batch.rootSeen ||= root;
          batch.failed ||= isError(span) && (root || isAgentSpan(span));
        });
      });
    });
    return batches;
  }
}
