/**
 * One row of an evaluation report. Types only, with no runtime imports, so the page can share it
 * (src/server/api-types.ts).
 */
import type { AccuracySummary } from './metrics.js';

/** One row of the report. */
export interface SummaryRow {
  method: string;
  /** undefined for baselines, which do not read the answer. */
  useGroundTruth?: boolean;
  subset: string;
  baseline: boolean;
  accuracy: AccuracySummary;
  traces: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Calls whose log was shortened to fit the model's context. */
  shortenedCalls: number;
  millisecondsPerTrace: number;
}
