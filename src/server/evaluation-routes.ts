/**
 * The evaluation runs of `faultline eval` under /api/evaluations: the list, one run with a row per
 * evaluated trace, and opening a trace of a run as an analysis.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { basename } from 'node:path';
import type { Attribution } from '../attribution/method.js';
import type { EvalRecord } from '../eval/result-store.js';
import { pageBounds, type Repository } from '../store/repository.js';
import { loadTraces } from '../trace/load.js';
import type {
  AnalysisResponse,
  EvaluationResponse,
  EvaluationSortKey,
  EvaluationTraceRow,
  EvaluationsResponse,
} from './api-types.js';
import { labelMatch } from './label-match.js';
import { pageOf } from './paging.js';

/** How rows compare under each sort key: the text each column shows. */
const SORT_VALUES: Record<EvaluationSortKey, (row: EvaluationTraceRow) => string> = {
  trace: (row) => row.file,
  subset: (row) => row.subset,
  method: (row) => `${row.method} (${row.useGroundTruth ? 'with' : 'without'} GT)`,
  blamed: (row) =>
    row.predicted.agent === null ? 'none' : `${row.predicted.agent} @ ${row.predicted.step}`,
  label: (row) =>
    `${(row.label.agents ?? [row.label.agent ?? '?']).join(' or ')} @ ${row.label.step ?? '?'}`,
  agent: (row) => String(row.correct.agent),
  step: (row) => String(row.correct.step),
};

const isSortKey = (key: string): key is EvaluationSortKey => Object.hasOwn(SORT_VALUES, key);

/** The evaluated traces a request asks for: filtered, sorted, before paging. */
function selectRows(
  rows: EvaluationTraceRow[],
  query: Record<string, string>,
): EvaluationTraceRow[] {
  let selected = rows;
  if (query.wrong === '1' || query.wrong === 'true')
    selected = selected.filter((row) => row.correct.agent === false || row.correct.step === false);
  const sort = query.sort;
  if (sort === undefined) return selected;
  if (!isSortKey(sort))
    throw new HTTPException(400, {
      message: `invalid sort ${JSON.stringify(sort)}: one of ${Object.keys(SORT_VALUES).join(', ')}`,
    });
  const value = SORT_VALUES[sort];
  const descending = query.order === 'desc';
  return [...selected].sort((left, right) => {
    const compared = value(left).localeCompare(value(right), 'en', { numeric: true });
    return (descending ? -compared : compared) || left.index - right.index;
  });
}

/** The evaluated records stored with an evaluation run's summary. */
function storedRecords(summary: unknown): EvalRecord[] {
  const records = (summary as { records?: unknown } | null)?.records;
  return Array.isArray(records) ? (records as EvalRecord[]) : [];
}

/** The routes, mounted at /api/evaluations. */
export function evaluationRoutes(repository: Repository): Hono {
  const api = new Hono();

  api.get('/', (context) => {
    const { items, ...page } = repository.listEvaluations(pageOf(context));
    return context.json({ evaluations: items, ...page } satisfies EvaluationsResponse);
  });

  api.get('/:id', (context) => {
    const evaluation = repository.getEvaluation(context.req.param('id'));
    if (!evaluation)
      throw new HTTPException(404, { message: `no evaluation ${context.req.param('id')}` });
    const { limit, offset } = pageBounds(pageOf(context));
    const rows = storedRecords(evaluation.summary).map((record, index): EvaluationTraceRow => ({
      index,
      file: record.file,
      subset: record.subset,
      method: record.method,
      useGroundTruth: record.useGroundTruth,
      predicted: { agent: record.predicted.agent, step: record.predicted.step },
      label: record.label,
      correct: labelMatch(record.predicted, record.label),
    }));
    const selected = selectRows(rows, context.req.query());
    // The summary is sent without its records: the page reads them a page at a time.
    const { records: _records, ...summary } = evaluation.summary as { records?: unknown };
    return context.json({
      evaluation: { ...evaluation, summary } as EvaluationResponse['evaluation'],
      traces: selected.slice(offset, offset + limit),
      total: selected.length,
      limit,
      offset,
    } satisfies EvaluationResponse);
  });

  // Opens one evaluated trace as an analysis: the trace is read again from its file (evaluations
  // keep results, not traces) and stored with the evaluation's verdict.
  api.post('/:id/records/:index/open', async (context) => {
    const id = context.req.param('id');
    const evaluation = repository.getEvaluation(id);
    const index = Number(context.req.param('index'));
    const record = storedRecords(evaluation?.summary)[index];
    if (!evaluation || !record)
      throw new HTTPException(404, {
        message: `no record ${context.req.param('index')} in evaluation ${id}`,
      });
    const traces = await loadTraces(record.file).catch((error: unknown) => {
      throw new HTTPException(404, {
        message: `${error instanceof Error ? error.message : String(error)} (the evaluation keeps results, not traces)`,
      });
    });
    const trace = traces.find((item) => item.id === record.id) ?? traces[0]!;
    const { id: traceId } = repository.saveTrace(trace, basename(record.file));
    const labels = repository.getLabels(traceId);
    // Opened before: the same analysis again.
    const opened = repository.findOpenedRecord(traceId, {
      evaluation: id,
      record: index,
      method: record.method,
    });
    if (opened)
      return context.json({
        analysis: opened,
        match: labelMatch(opened.result, labels),
      } satisfies AnalysisResponse);
    const { predicted } = record;
    const result: Attribution = {
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
    const analysis = repository.saveAnalysis(
      traceId,
      {
        method: record.method,
        useGroundTruth: record.useGroundTruth,
        evaluation: id,
        record: index,
      },
      result,
      record.milliseconds,
    );
    return context.json(
      {
        analysis: { ...analysis, traceName: basename(record.file) },
        match: labelMatch(result, labels),
      } satisfies AnalysisResponse,
      201,
    );
  });

  return api;
}
