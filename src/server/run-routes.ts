/**
 * Runs, recorded by `faultline proxy` or received as OpenTelemetry spans: list them (with each
 * one's latest verdict), count the agents blamed this week and last, and say how one ended
 * (`POST /api/runs/:id/outcome` with `{"outcome": "failed" | "passed"}`), which for a failure also
 * attributes it at once (unless `"attribute": false`), and read an unreadable run's kept spans
 * again (`POST /api/runs/:id/reread`). An app that never learns its trace id marks its run by its
 * session id or AI SDK function id (`POST /api/runs/outcome {"session": …, "outcome": …}`). Mounted under /api/runs; the server's access
 * guard applies as to every route.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { outcomeOf } from '../recording/replay/outcome.js';
import type { Repository } from '../store/repository.js';
import type { JobPool } from './job-pool.js';
import type { RereadResponse } from './api-types.js';
import { rereadUnreadable } from './live.js';
import { pageOf } from './paging.js';
import { validBody } from './request-body.js';

const outcomeSchema = z.object({
  outcome: z.string().min(1).max(20),
  attribute: z.boolean().optional(),
});

/** An outcome for the run an app knows by its session id or AI SDK function id. */
const keyedOutcomeSchema = outcomeSchema.extend({
  session: z.string().min(1).max(500).optional(),
  functionId: z.string().min(1).max(500).optional(),
});

/** The recorded-run routes. */
export function runRoutes(
  repository: Repository,
  jobs: JobPool,
  log: (line: string) => void = () => undefined,
): Hono {
  const { runs } = repository;
  const api = new Hono();

  api.get('/', async (context) => {
    const { items, ...page } = await runs.list(pageOf(context));
    return context.json({ runs: items, ...page });
  });

  // Which agent is blamed most for failed runs, this week against last.
  api.get('/blame', async (context) => context.json({ agents: await runs.blameByAgent() }));

  api.get('/:id', async (context) => {
    const run = await runs.get(context.req.param('id'));
    if (!run)
      throw new HTTPException(404, { message: `no recorded run ${context.req.param('id')}` });
    return context.json({ run });
  });

  // An unreadable run (spans no importer read) read again, after an upgrade; attributed if failed.
  api.post('/:id/reread', async (context) => {
    const id = context.req.param('id');
    const run = await runs.get(id);
    if (!run) throw new HTTPException(404, { message: `no recorded run ${id}` });
    if (run.unreadable === null)
      throw new HTTPException(409, {
        message: `run ${id} was read already (format ${run.format})`,
      });
    const [read] = await rereadUnreadable(jobs, log, {}, run.runId);
    const now = (await runs.get(run.runId))!;
    return context.json({
      run: now,
      unreadable: read?.unreadable ?? now.unreadable,
    } satisfies RereadResponse);
  });

  /** Marks a run's outcome in a job (attributing a failure) and answers the run and analysis. */
  const mark = async (id: string, request: z.infer<typeof outcomeSchema>) => {
    let outcome: ReturnType<typeof outcomeOf>;
    try {
      outcome = outcomeOf(request.outcome);
    } catch (error) {
      throw new HTTPException(400, {
        message: error instanceof Error ? error.message : String(error),
      });
    }
    const marked = await jobs.run<'outcome'>({
      kind: 'outcome',
      runId: id,
      outcome,
      ...(request.attribute !== undefined ? { attribute: request.attribute } : {}),
    });
    return { run: marked.run, analysis: marked.analysis ?? null };
  };

  // For an app that never learns its trace id: the latest run of its session or function id.
  api.post('/outcome', async (context) => {
    const request = await validBody(context.req.raw, keyedOutcomeSchema, 'outcome');
    const [key, value] = request.session
      ? (['session', request.session] as const)
      : request.functionId
        ? (['functionId', request.functionId] as const)
        : [];
    if (!key || !value)
      throw new HTTPException(400, { message: 'name the run by "session" or "functionId"' });
    const id = await repository.latestRunBy(key, value);
    if (!id) throw new HTTPException(404, { message: `no run with ${key} ${value}` });
    return context.json(await mark(id, request));
  });

  api.post('/:id/outcome', async (context) => {
    const id = context.req.param('id');
    const request = await validBody(context.req.raw, outcomeSchema, 'outcome');
    if (!(await runs.get(id))) throw new HTTPException(404, { message: `no recorded run ${id}` });
    return context.json(await mark(id, request));
  });

  return api;
}
