/**
 * The HTTP API's answers, as types shared by the server (routes.ts checks its bodies against them)
 * and the page (web/src/api.ts imports them). Types only: every module this one reaches is free of
 * runtime imports, so the browser build never pulls in server code.
 */
import type { SummaryRow } from '../eval/summary-row.js';
import type {
  AnalysisRecord,
  EvaluationSummaryRecord,
  HistoryEntry,
  TraceSummary,
} from '../store/records.js';
import type { AgentInfo, Trace, TraceLabels } from '../trace/model.js';

export type { Attribution } from '../attribution/method.js';
export type { Estimate } from '../eval/metrics.js';
export type { SummaryRow } from '../eval/summary-row.js';
export type { Step, Trace } from '../trace/model.js';

/** Every answer that is not a success. */
export interface ErrorResponse {
  error: string;
}

/** `GET /api/methods`. */
export interface MethodsResponse {
  methods: { name: string; description: string }[];
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

/** `POST /api/traces`. */
export interface UploadResponse {
  traces: UploadedTrace[];
}

/** One History row: whether the latest verdict matches the label (null without either). */
export interface HistoryRow extends HistoryEntry {
  correct: { agent: boolean; step: boolean | null } | null;
}

/** `GET /api/traces`: the History table, newest first. */
export interface TracesResponse {
  traces: HistoryRow[];
}

/** `GET /api/traces/:id`. */
export interface TraceResponse {
  trace: Trace;
}

/** An analysis as listed: with the name of its trace. */
export type Analysis = AnalysisRecord & { traceName?: string };

/** `POST /api/traces/:id/analyses` and `GET /api/analyses/:id`. */
export interface AnalysisResponse {
  analysis: Analysis;
}

/** `GET /api/analyses`. */
export interface AnalysesResponse {
  analyses: Analysis[];
}

/** `GET /api/evaluations`. */
export interface EvaluationsResponse {
  evaluations: EvaluationSummaryRecord[];
}

/** The stored report of an evaluation run, as far as the page reads it. */
export interface EvaluationSummary {
  rows: SummaryRow[];
}

/** `GET /api/evaluations/:id`. */
export interface EvaluationResponse {
  evaluation: EvaluationSummaryRecord & { summary: EvaluationSummary };
}
