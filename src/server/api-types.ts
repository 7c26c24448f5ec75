/**
 * The HTTP API's answers, as types shared by the server (routes.ts checks its bodies against them)
 * and the page (web/src/api.ts imports them). Types only: every module this one reaches is free of
 * runtime imports, so the browser build never pulls in server code.
 */
import type { SummaryRow } from '../eval/summary-row.js';
import type {
  AgentBlame,
  AnalysisRecord,
  EvaluationSummaryRecord,
  RunRecord,
  HistoryEntry,
  TaskRun,
  TaskSummary,
  TraceSummary,
} from '../store/records.js';
import type { AgentInfo, Trace, TraceLabels } from '../trace/model.js';
import type { TraceDiff } from '../attribution/diverge/types.js';
import type { MethodListing } from '../attribution/registry.js';
import type {
  Origin,
  RankedUnit,
  SpectrumResult,
  SuspiciousStep,
} from '../attribution/spectrum/types.js';

export type { Attribution } from '../attribution/method.js';
export type { AlignedPair, Divergence, TraceDiff } from '../attribution/diverge/types.js';
export type { Estimate } from '../eval/metrics.js';
export type { SummaryRow } from '../eval/summary-row.js';
export type { Step, ToolCall, Trace } from '../trace/model.js';

/**
 * Where a page of a list stands: every list answer has these beside its rows. Ask for the next
 * page with `?offset=<offset + limit>` while it is below `total`.
 */
export interface PageInfo {
  total: number;
  limit: number;
  offset: number;
}

/** Every answer that is not a success. */
export interface ErrorResponse {
  error: string;
}

/** `GET /api/methods`. */
export interface MethodsResponse {
  /** The page offers one with `needsRuns` for a recorded run of a task (`TraceResponse.run`). */
  methods: MethodListing[];
  providers: string[];
  formats: { name: string; description: string }[];
}

/** An example run the page offers. */
export interface Example {
  name: string;
  title: string;
  description: string;
}

/** `GET /api/examples`. */
export interface ExamplesResponse {
  examples: Example[];
}

/** One trace stored by an upload. */
export interface UploadedTrace extends TraceSummary {
  agents: AgentInfo[];
  labels: TraceLabels | null;
}

/**
 * `POST /api/traces`: the traces stored, and the lines of a JSON Lines file that could not be read
 * (each message names the file and line; the file's other lines are stored).
 */
export interface UploadResponse {
  traces: UploadedTrace[];
  skipped: string[];
}

/** One History row: whether the latest verdict matches the label (null without either). */
export interface HistoryRow extends HistoryEntry {
  correct: LabelMatch | null;
}

/** `GET /api/traces?limit&offset&q`: a page of the History table, newest first. */
export interface TracesResponse extends PageInfo {
  traces: HistoryRow[];
}

/** `GET /api/traces/:id`. */
export interface TraceResponse {
  trace: Trace;
  /**
   * The recorded run the trace is (proxy or OTLP), when it is one, and how many runs of its task
   * the store holds (itself included; 0 without a task): a task's methods read them.
   */
  run?: { runId: string; task: string | null; outcome: Trace['outcome']; taskRuns: number };
}

/** An analysis as listed: with the name of its trace. */
export type Analysis = AnalysisRecord & { traceName?: string };

/** Whether a verdict matches the trace's label, per level (null where the label says nothing). */
export interface LabelMatch {
  agent: boolean | null;
  step: boolean | null;
}

/** `POST /api/traces/:id/analyses` and `GET /api/analyses/:id`: with the match against the label. */
export interface AnalysisResponse {
  analysis: Analysis;
  match: LabelMatch;
}

/** `GET /api/analyses?trace&limit&offset`: a page of analyses, newest first. */
export interface AnalysesResponse extends PageInfo {
  analyses: Analysis[];
}

/** `GET /api/evaluations?limit&offset`: a page of evaluation runs, newest first. */
export interface EvaluationsResponse extends PageInfo {
  evaluations: EvaluationSummaryRecord[];
}

/** One evaluated trace under one method, as the Evaluations tab lists it. */
export interface EvaluationTraceRow {
  /** Position in the run's records: `POST /api/evaluations/:id/records/:index/open` opens it. */
  index: number;
  file: string;
  subset: string;
  method: string;
  useGroundTruth: boolean;
  predicted: { agent: string | null; step: number | null };
  label: { agent?: string; agents?: string[]; step?: number };
  correct: LabelMatch;
}

/** What the evaluated traces can be sorted by. */
export type EvaluationSortKey =
  'trace' | 'subset' | 'method' | 'blamed' | 'label' | 'agent' | 'step';

/** The stored report of an evaluation run, as far as the page reads it. */
export interface EvaluationSummary {
  rows: SummaryRow[];
}

/**
 * `GET /api/evaluations/:id?limit&offset&wrong&sort&order`: the summary table and a page of its
 * evaluated traces (`wrong=1`: only those wrong at agent or step; `sort`: one of
 * EVALUATION_SORT_KEYS, `order`: asc or desc).
 */
export interface EvaluationResponse extends PageInfo {
  evaluation: EvaluationSummaryRecord & { summary: EvaluationSummary };
  traces: EvaluationTraceRow[];
}

/** `GET /api/diff?failed=ID&passed=ID`: where the failed run parts from the passing one. */
export interface DiffResponse {
  diff: TraceDiff;
}

/** `GET /api/health`: the server answers; how many stored runs are unreadable spans. */
export interface HealthResponse {
  ok: true;
  unreadableRuns: number;
}

/** `POST /api/runs/:id/reread`: an unreadable run read again; `unreadable` says why it still is. */
export interface RereadResponse {
  run: RunRecord;
  unreadable: string | null;
}

/** `GET /api/runs?limit&offset`: runs recorded by the proxy or received as spans, newest first. */
export interface RunsResponse extends PageInfo {
  runs: RunRecord[];
}

/** `GET /api/runs/blame`: per agent, failed runs blamed on it in the last 7 days and the 7 before. */
export interface BlameResponse {
  agents: AgentBlame[];
}

/** `GET /api/tasks?limit&offset`: tasks with their runs counted by outcome, latest run first. */
export interface TasksResponse extends PageInfo {
  tasks: TaskSummary[];
}

/** The spectrum of a task's runs (docs/SPECTRUM.md), as the task view shows it. */
export interface TaskSpectrum extends Pick<
  SpectrumResult,
  'formula' | 'runs' | 'agents' | 'verdict' | 'conclusive' | 'notes'
> {
  /** The most suspicious units (at most TASK_UNITS), most suspicious first. */
  units: RankedUnit[];
  /** How many units the runs were cut into. */
  unitCount: number;
  /** Where failing runs first part from the passing ones. */
  departures: Origin[];
  /** The failed run studied, by its run id and its trace's id, and its steps, most suspicious first. */
  failed: { runId: string; traceId: string; steps: SuspiciousStep[] };
}

/**
 * `GET /api/tasks/:task?failed=RUN&limit=N`: the task's latest runs (at most `limit`, default 200,
 * of `total`) oldest first, and their spectrum, studying run `failed` (default: the latest failing).
 */
export interface TaskResponse {
  task: string;
  runs: TaskRun[];
  /** Runs of the task in the store; only the latest `limit` are read. */
  total: number;
  limit: number;
  /** Null when the runs read cannot be compared (none failed): `unavailable` says why. */
  spectrum: TaskSpectrum | null;
  unavailable: string | null;
}

export type { AgentBlame, RunRecord, RunVerdict } from '../store/records.js';
export type { TaskRun, TaskSummary } from '../store/records.js';
