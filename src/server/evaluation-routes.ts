/**
 * The evaluation runs of `faultline eval` under /api/evaluations: the list, one run with a row per
 * evaluated trace, and opening a trace of a run as an analysis.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { pageBounds, type Repository } from '../store/repository.js';
import type {
  AnalysisResponse,
  EvaluationResponse,
  EvaluationSortKey,
  EvaluationTraceRow,
  EvaluationsResponse,
} from './api-types.js';
import type { JobPool } from './job-pool.js';
import { labelMatch } from './label-match.js';
import { storedRecords } from './open-record.js';
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

/** An evaluation run as its pages read it: its summary without the records, and a row per record. */
interface ParsedEvaluation {
  evaluation: EvaluationResponse['evaluation'];
  rows: EvaluationTraceRow[];
}

/**
 * The evaluation runs parsed lately, by id: paging through a run of many thousand records parses
 * its summary once, not on every page. The store only inserts evaluation runs (never changes or
 * deletes one), which is what makes keeping them safe; a route that changes one must drop it here.
 */
const PARSED_KEPT = 4;

function parseEvaluation(
  evaluation: NonNullable<Awaited<ReturnType<Repository['getEvaluation']>>>,
): ParsedEvaluation {
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
  // The summary is sent without its records: the page reads them a page at a time.
  const { records: _records, ...summary } = evaluation.summary as { records?: unknown };
  return { evaluation: { ...evaluation, summary } as EvaluationResponse['evaluation'], rows };
}

/** The routes, mounted at /api/evaluations. */
export function evaluationRoutes(repository: Repository, jobs: JobPool): Hono {
  const api = new Hono();

  api.get('/', async (context) => {
    const { items, ...page } = await repository.listEvaluations(pageOf(context));
    return context.json({ evaluations: items, ...page } satisfies EvaluationsResponse);
  });

  const parsed = new Map<string, ParsedEvaluation>();
  api.get('/:id', async (context) => {
    const id = context.req.param('id');
    let found = parsed.get(id);
    if (!found) {
      const evaluation = await repository.getEvaluation(id);
      if (!evaluation) throw new HTTPException(404, { message: `no evaluation ${id}` });
      found = parseEvaluation(evaluation);
      parsed.set(id, found);
      if (parsed.size > PARSED_KEPT) parsed.delete(parsed.keys().next().value!);
    }
    const { limit, offset } = pageBounds(pageOf(context));
    const selected = selectRows(found.rows, context.req.query());
    return context.json({
      evaluation: found.evaluation,
      traces: selected.slice(offset, offset + limit),
      total: selected.length,
      limit,
      offset,
    } satisfies EvaluationResponse);
  });

  // Opens one evaluated trace as an analysis (a job: the trace is read from its file).
  api.post('/:id/records/:index/open', async (context) => {
    const { status, answer } = await jobs.run<'open-record'>({
      kind: 'open-record',
      evaluationId: context.req.param('id'),
      index: Number(context.req.param('index')),
    });
    return context.json(answer satisfies AnalysisResponse, status);
  });

  return api;
}
