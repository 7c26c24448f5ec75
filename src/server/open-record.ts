/**
 * Opening one evaluated trace of an evaluation run as an analysis (a job, jobs.ts): evaluations keep
 * results, not traces, so the trace is read again from its file, stored, and given the evaluation's
 * verdict; opened again, the same analysis is answered.
 */
import { HTTPException } from 'hono/http-exception';
import { basename } from 'node:path';
import type { Attribution } from '../attribution/method.js';
import type { EvalRecord } from '../eval/result-store.js';
import type { Repository } from '../store/repository.js';
import { loadTraces } from '../trace/load.js';
import type { AnalysisResponse } from './api-types.js';
import { labelMatch } from './label-match.js';

/** The evaluated records stored with an evaluation run's summary. */
export function storedRecords(summary: unknown): EvalRecord[] {
  const records = (summary as { records?: unknown } | null)?.records;
  return Array.isArray(records) ? (records as EvalRecord[]) : [];
}

/** The verdict an evaluated record holds, as an attribution. */
function resultOf(record: EvalRecord): Attribution {
  const { predicted } = record;
  return {
    agent: predicted.agent,
    step: predicted.step,
    reason: predicted.reason,
    method: record.method,
    ...(predicted.confidence !== undefined ? { confidence: predicted.confidence } : {}),
    ...(predicted.agentConfidence !== undefined
      ? { agentConfidence: predicted.agentConfidence }
      : {}),
    ...(predicted.warnings ? { warnings: predicted.warnings } : {}),
    usage: record.usage,
  };
}

/** Opens record `index` of evaluation `id`: 201 with a new analysis, 200 when opened before. */
export async function openRecord(
  repository: Repository,
  id: string,
  index: number,
): Promise<{ status: 200 | 201; answer: AnalysisResponse }> {
  const evaluation = await repository.getEvaluation(id);
  const record = storedRecords(evaluation?.summary)[index];
  if (!evaluation || !record)
    throw new HTTPException(404, { message: `no record ${index} in evaluation ${id}` });
  const traces = await loadTraces(record.file).catch((error: unknown) => {
    throw new HTTPException(404, {
      message: `${error instanceof Error ? error.message : String(error)} (the evaluation keeps results, not traces)`,
    });
  });
  const trace = traces.find((item) => item.id === record.id) ?? traces[0]!;
  const { id: traceId } = await repository.saveTrace(trace, basename(record.file));
  const [labels, opened] = await Promise.all([
    repository.getLabels(traceId),
    repository.findOpenedRecord(traceId, {
      evaluation: id,
      record: index,
      method: record.method,
    }),
  ]);
  if (opened)
    return {
      status: 200,
      answer: { analysis: opened, match: labelMatch(opened.result, labels) },
    };
  const result = resultOf(record);
  const analysis = await repository.saveAnalysis(
    traceId,
    { method: record.method, useGroundTruth: record.useGroundTruth, evaluation: id, record: index },
    result,
    record.milliseconds,
  );
  return {
    status: 201,
    answer: {
      analysis: { ...analysis, traceName: basename(record.file) },
      match: labelMatch(result, labels),
    },
  };
}
