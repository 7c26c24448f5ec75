/**
 * The HTTP API: the traces (uploads, labels), the analyses, evaluation runs, recorded runs and
 * diffs, a module each, and what the page asks first (health, the methods and formats). Inputs are
 * validated at the edge, in those modules; handlers call the same library functions as the
 * command line.
 */
import { Hono } from 'hono';
import { listMethods } from '../attribution/registry.js';
import { providerNames } from '../llm/provider-catalog.js';
import type { Repository } from '../store/repository.js';
import { listFormats } from '../trace/registry.js';
import { analysisRoutes, type RouteOptions } from './analysis-routes.js';
import type { MethodsResponse } from './api-types.js';
import { diffRoutes } from './diff-routes.js';
import { evaluationRoutes } from './evaluation-routes.js';
import { runRoutes } from './run-routes.js';
import { traceRoutes } from './trace-routes.js';

/** The API routes, mounted under /api. */
export function apiRoutes(repository: Repository, options: RouteOptions): Hono {
  const api = new Hono();
  const { jobs } = options;

  api.get('/health', (context) => context.json({ ok: true }));

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
  api.route('/runs', runRoutes(repository, jobs));
  api.route('/diff', diffRoutes(jobs));

  return api;
}
