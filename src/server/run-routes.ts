/**
 * Recorded runs (`faultline proxy`): list them, and say how one ended
 * (`POST /api/runs/:id/outcome` with `{"outcome": "failed" | "passed"}`), which for a failure also
 * attributes it at once (unless `"attribute": false`). Mounted under /api/runs; the server's access
 * guard applies as to every route.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { UserError } from '../errors.js';
import { markOutcome, outcomeOf } from '../recording/outcome.js';
import type { Repository } from '../store/repository.js';
import { RunStore } from '../store/runs.js';

const outcomeSchema = z.object({
  outcome: z.string().min(1).max(20),
  attribute: z.boolean().optional(),
});

/** The recorded-run routes. */
export function runRoutes(repository: Repository): Hono {
  const runs = RunStore.of(repository);
  const api = new Hono();

  api.get('/', (context) => context.json({ runs: runs.list() }));

  api.get('/:id', (context) => {
    const run = runs.get(context.req.param('id'));
    if (!run)
      throw new HTTPException(404, { message: `no recorded run ${context.req.param('id')}` });
    return context.json({ run });
  });

  api.post('/:id/outcome', async (context) => {
    let body: unknown;
    try {
      const text = await context.req.text();
      body = text.trim() ? JSON.parse(text) : {};
    } catch {
      throw new HTTPException(400, { message: 'the request body is not valid JSON' });
    }
    const parsed = outcomeSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HTTPException(400, {
        message: `invalid outcome: ${issue.path.join('.') || 'body'}: ${issue.message}`,
      });
    }
    try {
      const outcome = outcomeOf(parsed.data.outcome);
      const marked = await markOutcome(runs, repository, context.req.param('id'), outcome, {
        ...(parsed.data.attribute !== undefined ? { attribute: parsed.data.attribute } : {}),
      });
      return context.json({ run: marked.run, analysis: marked.analysis ?? null });
    } catch (error) {
      if (error instanceof UserError)
        throw new HTTPException(error.message.startsWith('no recorded run') ? 404 : 400, {
          message: error.message,
        });
      throw error;
    }
  });

  return api;
}
