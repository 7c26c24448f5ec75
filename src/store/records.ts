/**
 * The records the store keeps and the HTTP API returns. Types only, with no runtime imports, so
 * the page can share them (src/server/api-types.ts).
 */
import type { Attribution } from '../attribution/method.js';
import type { TraceLabels } from '../trace/model.js';

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
