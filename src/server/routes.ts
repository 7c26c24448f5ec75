/**
 * The HTTP API: the traces (uploads, labels), the analyses, evaluation runs, recorded runs, their
 * tasks and diffs, a module each, and what the page asks first (health, the methods and formats). Inputs are
 * validated at the edge, in those modules; handlers call the same library functions as the
 * command line.
 */
import { Hono } from 'hono';
import { listMethods } from '../attribution/registry.js';
import { providerNames } from '../llm/provider-catalog.js';
import type { Repository } from '../store/repository.js';
import { listFormats } from '../trace/registry.js';
import { analysisRoutes, type RouteOptions } from './analysis-routes.js';
import type { HealthResponse, MethodsResponse } from './api-types.js';
import { diffRoutes } from './diff-routes.js';
import { evaluationRoutes } from './evaluation-routes.js';
import { runRoutes } from './run-routes.js';
import { taskRoutes } from './task-routes.js';
import { traceRoutes } from './trace-routes.js';

/** The API routes, mounted under /api. */
export function apiRoutes(repository: Repository, options: RouteOptions): Hono {
  const api = new Hono();
  const { jobs } = options;

  // Health says how many stored runs are unreadable spans, counted at most every 2 s.
  let unreadable: { count: Promise<number>; at: number } | undefined;
  const unreadableRuns = () => {
    if (!unreadable || Date.now() - unreadable.at > 2000)
      unreadable = { count: repository.unreadableRuns.count(), at: Date.now() };
    return unreadable.count;
  };
  api.get('/health', async (context) =>
    context.json({ ok: true, unreadableRuns: await unreadableRuns() } satisfies HealthResponse),
  );

  api.get('/methods', (context) =>
    context.json({
      methods: listMethods(),
      providers: providerNames(),
      formats: listFormats().map((format) => ({
        name: format.name,
        description: format.description,
      })),
    } satisfies MethodsResponse),
  );

  api.route('/', traceRoutes(repository, jobs));
  api.route('/', analysisRoutes(repository, options));
  api.route('/evaluations', evaluationRoutes(repository, jobs));
  api.route('/runs', runRoutes(repository, jobs, options.log));
  api.route('/tasks', taskRoutes(repository, jobs));
  api.route('/diff', diffRoutes(jobs));

  return api;
}
