/**
 * The records the store keeps and the HTTP API returns. Types only, with no runtime imports, so
 * the page can share them (src/server/api-types.ts).
 */
import type { Attribution } from '../attribution/method.js';

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
