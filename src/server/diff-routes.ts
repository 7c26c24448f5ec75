/**
 * Trajectory diffs of stored traces under /api/diff: `GET /api/diff?failed=ID&passed=ID` answers
 * where the failed run parts from the passing one (src/attribution/diverge/), for the page's
 * two-column view. The diff runs on the request thread: it parses both stored traces and aligns
 * them in linear memory (well under a second for 2,000 steps a side).
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { diffTraces } from '../attribution/diverge/diff.js';
import type { Repository } from '../store/repository.js';
import type { DiffResponse } from './api-types.js';

/** The diff routes, mounted under /api/diff. */
export function diffRoutes(repository: Repository): Hono {
  const api = new Hono();

  api.get('/', (context) => {
    const ids = { failed: context.req.query('failed'), passed: context.req.query('passed') };
    for (const [side, id] of Object.entries(ids))
      if (!id)
        throw new HTTPException(400, {
          message: `name both runs: /api/diff?failed=TRACE_ID&passed=TRACE_ID (${side} is missing)`,
        });
    const [failed, passed] = [ids.failed!, ids.passed!].map((id) => {
      const trace = repository.getTrace(id);
      if (!trace) throw new HTTPException(404, { message: `no trace ${id}` });
      return trace;
    });
    // A stored trace's source is the name it was uploaded under; the runs are named by their
    // ids in the store (a trace's own id is the file's), so that the page can link to them.
    const diff = diffTraces(failed!, passed!);
    diff.failed.id = ids.failed!;
    diff.passed.id = ids.passed!;
    return context.json({ diff } satisfies DiffResponse);
  });

  return api;
}
