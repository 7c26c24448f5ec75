/**
 * A completed run into the store: its spans, as one OTLP/JSON document, go through the importers
 * the registry detects (AI SDK, GenAI, OpenInference, OpenAI Agents, Langfuse…), and the trace is
 * saved as a run (RunStore, the table the recording proxy writes), so spans and proxied calls share
 * one list and one outcome API. A run no importer can read is not lost: it is saved as an
 * unreadable run (format UNREADABLE_FORMAT, no steps) with the reason and its spans in its
 * metadata, shown so on the page and over the API, and read again by `rereadRun` (on request, and
 * at server start, after an upgrade). Runs in a job worker (src/server/jobs.ts).
 */
import { UNREADABLE_FORMAT } from '../store/records.js';
import type { RunStore } from '../store/runs.js';
import { importRawInput } from '../trace/load.js';
import type { Trace } from '../trace/model.js';
import type { OtlpDocument } from './span-buffer.js';

/** A run as stored. */
export interface StoredLiveRun {
  runId: string;
  /** The trace's id in the store (what analyses and the page use). */
  traceId: string;
  steps: number;
  outcome: Trace['outcome'];
  /** Why no importer could read the run's spans, when none could (they are kept). */
  unreadable?: string;
}

/** A completed run's spans and what the buffer saw of them. */
export interface LiveRun {
  traceId: string;
  document: OtlpDocument;
  failed: boolean;
}

const nameOf = (trace: Trace, traceId: string) => {
  const service = trace.metadata?.service;
  return `${typeof service === 'string' && service ? service : 'OTLP'} ${traceId.slice(0, 8)}`;
};

/** The service name of the spans' first resource, when it has one. */
function serviceOf(document: OtlpDocument): string | undefined {
  const resource = (document.resourceSpans[0] as { resource?: { attributes?: unknown } })?.resource;
  const attributes = Array.isArray(resource?.attributes) ? (resource.attributes as unknown[]) : [];
  for (const item of attributes) {
    const { key, value } = (item ?? {}) as { key?: unknown; value?: { stringValue?: unknown } };
    if (key === 'service.name' && typeof value?.stringValue === 'string') return value.stringValue;
  }
  return undefined;
}

/** The run as read by the importers, or why it could not be. */
async function readRun(run: LiveRun): Promise<{ trace: Trace } | { reason: string }> {
  try {
    const [imported] = await importRawInput(
      { kind: 'json', value: run.document },
      { file: `OTLP trace ${run.traceId}`, id: run.traceId },
    );
    if (!imported) return { reason: `OTLP trace ${run.traceId} gave no run` };
    // An outcome the app marked on its spans wins over an error status; else an error fails it.
    const marked = imported.metadata?.outcomeMarked === true;
    return {
      trace: {
        ...imported,
        // The run id is the trace id the exporter sent, whatever id the importer chose.
        id: run.traceId,
        outcome: !marked && run.failed ? 'failure' : imported.outcome,
      },
    };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Imports a completed run's spans and stores the trace under its OTLP trace id. */
export async function storeLiveRun(runs: RunStore, run: LiveRun): Promise<StoredLiveRun> {
  const read = await readRun(run);
  const service = serviceOf(run.document);
  const trace: Trace =
    'trace' in read
      ? read.trace
      : {
          id: run.traceId,
          format: UNREADABLE_FORMAT,
          source: `OTLP trace ${run.traceId}`,
          outcome: run.failed ? 'failure' : 'unknown',
          steps: [],
          agents: [],
          metadata: {
            unreadable: read.reason,
            ...(service ? { service } : {}),
            otlp: run.document,
          },
        };
  const record = await runs.save(trace, { name: nameOf(trace, run.traceId) });
  return {
    runId: record.runId,
    traceId: record.traceId,
    steps: record.steps,
    outcome: record.outcome,
    ...('reason' in read ? { unreadable: read.reason } : {}),
  };
}

/**
 * Reads an unreadable run's kept spans again (after an upgrade, a reader may know them now) and
 * stores what they give; undefined when there is no such run or it is not unreadable.
 */
export async function rereadRun(runs: RunStore, runId: string): Promise<StoredLiveRun | undefined> {
  const trace = await runs.trace(runId);
  if (!trace || trace.format !== UNREADABLE_FORMAT) return undefined;
  const document = trace.metadata.otlp as OtlpDocument | undefined;
  if (!document || !Array.isArray(document.resourceSpans)) return undefined;
  return storeLiveRun(runs, {
    traceId: trace.id,
    document,
    failed: trace.outcome === 'failure',
  });
}
