/**
 * The records the store keeps and the HTTP API returns. Types only, with no runtime imports, so
 * the page can share them (src/server/api-types.ts).
 */
import type { Attribution } from '../attribution/method.js';
import type { LabelProof, TraceLabels, TraceOutcome } from '../trace/model.js';

/** A stored trace, without its body. */
export interface TraceSummary {
  id: string;
  name: string;
  format: string;
  steps: number;
  createdAt: string;
}

/** A stored analysis. */
export interface AnalysisRecord {
  id: string;
  traceId: string;
  method: string;
  model: string | null;
  settings: Record<string, unknown>;
  result: Attribution;
  milliseconds: number;
  createdAt: string;
}

/** A stored evaluation run, without its summary. */
export interface EvaluationSummaryRecord {
  id: string;
  title: string;
  methods: string[];
  traces: number;
  createdAt: string;
}

/** The label a person gives a trace on the page: who is responsible, and at which step. */
export interface UserLabel {
  agent: string;
  step: number;
  reason?: string;
  /** Set by `faultline verify --label`: replay proved the step (never by the page). */
  proof?: LabelProof;
}

/** One row of the History table: a stored trace, its label and its latest analysis. */
export interface HistoryEntry extends TraceSummary {
  label: TraceLabels | null;
  latest: {
    id: string;
    method: string;
    model: string | null;
    agent: string | null;
    step: number | null;
  } | null;
}

/** The latest analysis of a run, as the Runs view shows it. */
export interface RunVerdict {
  analysisId: string;
  method: string;
  agent: string | null;
  step: number | null;
  /** MAST modes the analysis named, by code (`2.6`). */
  modes: string[];
  createdAt: string;
}

/** How often an agent was blamed for failed runs, this week against the week before. */
export interface AgentBlame {
  agent: string;
  thisWeek: number;
  lastWeek: number;
}

/** The format of a run whose spans no importer could read (its spans kept in its metadata). */
export const UNREADABLE_FORMAT = 'unreadable';

/** A stored recorded run. */
export interface RunRecord {
  runId: string;
  /** The trace's id in the store (what the page's addresses use). */
  traceId: string;
  /** The file the proxy writes the run to, when it writes one. */
  file: string | null;
  outcome: TraceOutcome;
  /** The task it is a run of (src/trace/task.ts); null for runs stored before tasks were kept. */
  task: string | null;
  steps: number;
  /** The trace's name and format (`otel`, `openinference`… for spans; the proxy's own otherwise). */
  name: string;
  format: string;
  /** The latest analysis, when the run has one. */
  verdict: RunVerdict | null;
  /**
   * Why the run's spans could not be read, for a run received over OTLP that no importer read
   * (format UNREADABLE_FORMAT): its spans are kept, and it is read again on request or at start.
   */
  unreadable: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A task and its runs counted by outcome. */
export interface TaskSummary {
  task: string;
  runs: number;
  failed: number;
  passed: number;
  /** Runs without an outcome yet. */
  unknown: number;
  /** When its latest run was first stored. */
  latestAt: string;
}

/** A run of a task, as the task view's strip shows it. */
export interface TaskRun {
  runId: string;
  traceId: string;
  name: string;
  outcome: TraceOutcome;
  steps: number;
  createdAt: string;
}
