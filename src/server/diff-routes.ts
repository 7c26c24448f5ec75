/**
 * Trajectory diffs of stored traces under /api/diff: `GET /api/diff?failed=ID&passed=ID` answers
 * where the failed run parts from the passing one (src/attribution/diverge/), for the page's
 * two-column view. The diff is a job (jobs.ts): both traces are read and aligned in a worker, never
 * on the thread that answers requests.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { DiffResponse } from './api-types.js';
import type { JobPool } from './job-pool.js';

/** The diff routes, mounted under /api/diff. */
export function diffRoutes(jobs: JobPool): Hono {
  const api = new Hono();

  api.get('/', async (context) => {
    const ids = { failed: context.req.query('failed'), passed: context.req.query('passed') };
    for (const [side, id] of Object.entries(ids))
      if (!id)
        throw new HTTPException(400, {
          message: `name both runs: /api/diff?failed=TRACE_ID&passed=TRACE_ID (${side} is missing)`,
        });
    const answer = await jobs.run<'diff'>({
      kind: 'diff',
      failedId: ids.failed!,
      passedId: ids.passed!,
    });
    return context.json(answer satisfies DiffResponse);
  });

  return api;
}
