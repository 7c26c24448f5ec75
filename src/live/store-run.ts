/**
 * A completed run into the store: its spans, as one OTLP/JSON document, go through the importers
 * the registry detects (GenAI, OpenInference, OpenAI Agents, Langfuse, AI SDK…), and the trace is
 * saved as a run (RunStore, the table the recording proxy writes), so spans and proxied calls share
 * one list and one outcome API. Runs in a job worker (src/server/jobs.ts).
 */
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
}

/** Imports a completed run's spans and stores the trace under its OTLP trace id. */
export async function storeLiveRun(
  runs: RunStore,
  run: { traceId: string; document: OtlpDocument; failed: boolean },
): Promise<StoredLiveRun> {
  const [imported] = await importRawInput(
    { kind: 'json', value: run.document },
    { file: `OTLP trace ${run.traceId}`, id: run.traceId },
  );
  if (!imported) throw new Error(`OTLP trace ${run.traceId} gave no run`);
  // The run id is the trace id the exporter sent, whatever id the importer chose.
  const trace: Trace = {
    ...imported,
    id: run.traceId,
    outcome: run.failed ? 'failure' : imported.outcome,
  };
  const service = trace.metadata?.service;
  const name = `${typeof service === 'string' && service ? service : 'OTLP'} ${run.traceId.slice(0, 8)}`;
  const record = await runs.save(trace, { name });
  return {
    runId: record.runId,
    traceId: record.traceId,
    steps: record.steps,
    outcome: record.outcome,
  };
}
