/**
 * Tasks under /api/tasks: the tasks of the stored runs with their runs counted by outcome
 * (`GET /api/tasks`), and one task's latest runs with their spectrum (`GET /api/tasks/:task`,
 * `?failed=RUN` to study that failed run, `?limit=N` runs read, default 200), a job
 * (task-spectrum.ts) since it reads and compares many traces. The server's access guard applies as
 * to every route.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import type { Repository } from '../store/repository.js';
import type { TaskResponse, TasksResponse } from './api-types.js';
import type { JobPool } from './job-pool.js';
import { pageOf } from './paging.js';
import { DEFAULT_TASK_RUNS } from './task-spectrum.js';

/** Most runs of a task one request may read. */
const MAX_TASK_RUNS = 1000;

const taskQuerySchema = z.object({
  task: z.string().min(1).max(500),
  failed: z.string().min(1).max(500).optional(),
  limit: z.coerce.number().int().min(2).max(MAX_TASK_RUNS).default(DEFAULT_TASK_RUNS),
});

/** The task routes, mounted under /api/tasks. */
export function taskRoutes(repository: Repository, jobs: JobPool): Hono {
  const api = new Hono();

  api.get('/', async (context) => {
    const { items, ...page } = await repository.tasks.list(pageOf(context));
    return context.json({ tasks: items, ...page } satisfies TasksResponse);
  });

  api.get('/:task', async (context) => {
    const parsed = taskQuerySchema.safeParse({
      task: context.req.param('task'),
      failed: context.req.query('failed') || undefined,
      limit: context.req.query('limit') || undefined,
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HTTPException(400, {
        message: `invalid ${issue.path.join('.')}: ${issue.message} (limit: 2-${MAX_TASK_RUNS} runs; failed: a run id)`,
      });
    }
    const { task, failed, limit } = parsed.data;
    const answer = await jobs.run<'task-spectrum'>({
      kind: 'task-spectrum',
      task,
      limit,
      ...(failed !== undefined ? { failed } : {}),
    });
    return context.json(answer satisfies TaskResponse);
  });

  return api;
}
