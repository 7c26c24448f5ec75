/**
 * The runs list's rows read back as records (runs.ts): the outcome column checked, the latest
 * analysis's verdict picked out of its JSON, and why an unreadable run was not read.
 */
import type { TraceOutcome } from '../trace/model.js';
import { UNREADABLE_FORMAT, type RunRecord, type RunVerdict } from './records.js';

/** A row of the runs list's query (runs.ts), with its trace's and latest analysis's columns. */
export interface RunRow {
  run_id: string;
  trace_id: string;
  file: string | null;
  outcome: string;
  task: string | null;
  steps: number;
  name: string;
  format: string;
  created_at: string;
  updated_at: string;
  analysis_id: string | null;
  analysis_method: string | null;
  analysis_result: string | null;
  analysis_created: string | null;
  unreadable: string | null;
}

/** The fields of a stored analysis the list reads. */
function verdictOf(row: RunRow): RunVerdict | null {
  if (!row.analysis_id || !row.analysis_result) return null;
  const result = JSON.parse(row.analysis_result) as {
    agent?: string | null;
    step?: number | null;
    modes?: { code: string }[];
  };
  return {
    analysisId: row.analysis_id,
    method: row.analysis_method ?? '',
    agent: result.agent ?? null,
    step: result.step ?? null,
    modes: (result.modes ?? []).map((mode) => mode.code),
    createdAt: row.analysis_created ?? '',
  };
}

const OUTCOMES = new Set<TraceOutcome>(['success', 'failure', 'unknown']);

/** A stored outcome column read back: anything but the three outcomes is `unknown`. */
export const storedOutcome = (text: string): TraceOutcome =>
  OUTCOMES.has(text as TraceOutcome) ? (text as TraceOutcome) : 'unknown';

/** A row as the record the API answers. */
export const toRecord = (row: RunRow): RunRecord => ({
  runId: row.run_id,
  traceId: row.trace_id,
  file: row.file,
  outcome: storedOutcome(row.outcome),
  task: row.task,
  steps: row.steps,
  name: row.name,
  format: row.format,
  verdict: verdictOf(row),
  unreadable: row.format === UNREADABLE_FORMAT ? (row.unreadable ?? 'unreadable spans') : null,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
