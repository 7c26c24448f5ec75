/**
 * Analyses under /api: run one on a stored trace (`POST /traces/:id/analyses`, a job), list them
 * a page at a time, and read one with whether it matches the trace's label. Where a model call's
 * key may go is decided here: the server's own keys only to the endpoints it was launched with.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { hasVendorKey } from '../llm/provider-catalog.js';
import type { Repository } from '../store/repository.js';
import type { AnalysesResponse, AnalysisResponse } from './api-types.js';
import { labelMatch } from './label-match.js';
import { pageOf } from './paging.js';
import { validBody } from './request-body.js';
import type { JobPool } from './job-pool.js';

const analysisRequestSchema = z.object({
  method: z.string().min(1).default('offline'),
  model: z.string().min(3).optional(),
  baseUrl: z.url().optional(),
  /** A key for `baseUrl` (or the provider): used for this call only, never stored or logged. */
  apiKey: z.string().min(1).max(1000).optional(),
  useGroundTruth: z.boolean().default(true),
});

/** What the routes need besides the repository. */
export interface RouteOptions {
  /** Runs imports and analyses off the request thread. */
  jobs: JobPool;
  /** The endpoint the server was launched with (`--base-url`) for models without a vendor key. */
  baseUrl?: string;
  /** The server's log (runs read again say so there). */
  log?: (line: string) => void;
}

/** The analysis routes, mounted at /api. */
export function analysisRoutes(repository: Repository, options: RouteOptions): Hono {
  const api = new Hono();
  const { jobs } = options;

  api.post('/traces/:id/analyses', async (context) => {
    const traceId = context.req.param('id');
    const request = await validBody(context.req.raw, analysisRequestSchema, 'analysis request');
    // The server's own keys go only to the endpoints it was launched with: a vendor's key to the
    // vendor's endpoint, the launch --base-url to models without a vendor key (openai-compatible,
    // ollama). An endpoint chosen in the request gets the key the request brings, or none.
    const provider = request.model?.split(':')[0];
    const launchUrl = provider && hasVendorKey(provider) ? undefined : options.baseUrl;
    const baseUrl = request.baseUrl ?? launchUrl;
    const chosenHere = request.baseUrl !== undefined && request.baseUrl !== launchUrl;
    const answer = await jobs.run<'analyse'>({
      kind: 'analyse',
      traceId,
      request: {
        method: request.method,
        useGroundTruth: request.useGroundTruth,
        ...(request.model ? { model: request.model } : {}),
        ...(baseUrl ? { baseUrl } : {}),
        ...(request.apiKey ? { apiKey: request.apiKey } : {}),
        environmentKey: !chosenHere,
      },
    });
    return context.json(answer satisfies AnalysisResponse, 201);
  });

  api.get('/analyses', async (context) => {
    const traceId = context.req.query('trace');
    const { items, ...page } = await repository.listAnalyses({
      ...pageOf(context),
      ...(traceId ? { traceId } : {}),
    });
    return context.json({ analyses: items, ...page } satisfies AnalysesResponse);
  });

  api.get('/analyses/:id', async (context) => {
    const analysis = await repository.getAnalysis(context.req.param('id'));
    if (!analysis)
      throw new HTTPException(404, { message: `no analysis ${context.req.param('id')}` });
    const labels = await repository.getLabels(analysis.traceId);
    return context.json({
      analysis,
      match: labelMatch(analysis.result, labels),
    } satisfies AnalysisResponse);
  });

  return api;
}
