/**
 * The HTTP API: upload traces, run analyses, browse analyses and evaluation runs. Inputs are
 * validated here, at the edge; handlers call the same library functions as the command line.
 */
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { listMethods } from '../attribution/registry.js';
import { hasVendorKey, providerNames } from '../llm/provider-catalog.js';
import { PASTED, type HistoryEntry, type Repository } from '../store/repository.js';
import { listFormats } from '../trace/registry.js';
import type {
  AnalysesResponse,
  AnalysisResponse,
  ExamplesResponse,
  HistoryRow,
  MethodsResponse,
  TracesResponse,
} from './api-types.js';
import { diffRoutes } from './diff-routes.js';
import { evaluationRoutes } from './evaluation-routes.js';
import { runRoutes } from './run-routes.js';
import { EXAMPLES, readExample } from './examples.js';
import type { JobPool } from './job-pool.js';
import { labelMatch } from './label-match.js';
import { pageOf } from './paging.js';
import { validBody } from './request-body.js';

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
  /** The model endpoint the server was launched with (`--base-url`): its keys may go there. */
  baseUrl?: string;
}

const userLabelSchema = z.object({
  agent: z.string().min(1).max(200),
  step: z.number().int().min(0),
  reason: z.string().max(2000).optional(),
});

/** Trace names are shown back to users: keep them short, single-line text. */
function traceName(raw: string | undefined): string {
  const name = (raw ?? PASTED).replace(/[\r\n\t]+/g, ' ').trim();
  return name.slice(0, 200) || PASTED;
}

/** The History row of an entry: whether its latest verdict matches its label. */
const historyRow = (entry: HistoryEntry): HistoryRow => ({
  ...entry,
  correct: entry.latest && entry.label ? labelMatch(entry.latest, entry.label) : null,
});

/** The API routes, mounted under /api. */
export function apiRoutes(repository: Repository, options: RouteOptions): Hono {
  const api = new Hono();
  const { jobs } = options;

  /** Imports a file's bytes and stores every trace in it. */
  const store = (bytes: Uint8Array, name: string, format: string | undefined) =>
    jobs.run<'import'>({ kind: 'import', bytes, name, ...(format ? { format } : {}) });

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

  api.post('/traces', async (context) => {
    const bytes = new Uint8Array(await context.req.arrayBuffer());
    if (bytes.every((byte) => byte <= 32))
      throw new HTTPException(400, {
        message: 'the upload is empty: send the trace file as the request body',
      });
    const name = traceName(context.req.query('name') ?? context.req.header('x-trace-name'));
    const format = context.req.query('format');
    return context.json(await store(bytes, name, format), 201);
  });

  api.get('/examples', (context) =>
    context.json({
      examples: EXAMPLES.map(({ name, title, description }) => ({ name, title, description })),
    } satisfies ExamplesResponse),
  );

  api.post('/examples/:name', async (context) => {
    const example = await readExample(context.req.param('name'));
    if (!example)
      throw new HTTPException(404, { message: `no example ${context.req.param('name')}` });
    return context.json(await store(example.bytes, example.file, undefined), 201);
  });

  api.get('/traces', (context) => {
    const query = context.req.query('q');
    const { items, ...page } = repository.listHistory({
      ...pageOf(context),
      ...(query ? { query } : {}),
    });
    return context.json({ traces: items.map(historyRow), ...page } satisfies TracesResponse);
  });

  // A trace is answered with the JSON the database holds (a TraceResponse), never parsed here.
  const traceAnswer = (context: Context, id: string) => {
    const json = repository.getTraceJson(id);
    if (json === undefined) throw new HTTPException(404, { message: `no trace ${id}` });
    return context.body(`{"trace":${json}}`, 200, { 'content-type': 'application/json' });
  };

  api.get('/traces/:id', (context) => traceAnswer(context, context.req.param('id')));

  api.delete('/traces/:id', (context) => {
    if (!repository.deleteTrace(context.req.param('id')))
      throw new HTTPException(404, { message: `no trace ${context.req.param('id')}` });
    return context.json({ deleted: true });
  });

  // Teach it: a person's verdict on a trace, stored as its label (and cleared with DELETE).
  api.put('/traces/:id/label', async (context) => {
    const id = context.req.param('id');
    const label = await validBody(context.req.raw, userLabelSchema, 'label');
    const hasStep = repository.hasStep(id, label.step);
    if (hasStep === undefined) throw new HTTPException(404, { message: `no trace ${id}` });
    if (!hasStep)
      throw new HTTPException(400, {
        message: `invalid label: the trace has no step ${label.step}`,
      });
    repository.setUserLabel(id, label);
    return traceAnswer(context, id);
  });

  api.delete('/traces/:id/label', (context) => {
    const id = context.req.param('id');
    if (!repository.setUserLabel(id, null))
      throw new HTTPException(404, { message: `no trace ${id}` });
    return traceAnswer(context, id);
  });

  // Every labelled trace as one canonical JSON file: put it in a folder for `faultline train --data`.
  api.get('/labels', (context) => {
    context.header('content-disposition', 'attachment; filename="faultline-labelled-traces.json"');
    return context.json(repository.labelledTraces());
  });

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

  api.get('/analyses', (context) => {
    const traceId = context.req.query('trace');
    const { items, ...page } = repository.listAnalyses({
      ...pageOf(context),
      ...(traceId ? { traceId } : {}),
    });
    return context.json({ analyses: items, ...page } satisfies AnalysesResponse);
  });

  api.get('/analyses/:id', (context) => {
    const analysis = repository.getAnalysis(context.req.param('id'));
    if (!analysis)
      throw new HTTPException(404, { message: `no analysis ${context.req.param('id')}` });
    const labels = repository.getLabels(analysis.traceId);
    return context.json({
      analysis,
      match: labelMatch(analysis.result, labels),
    } satisfies AnalysisResponse);
  });

  api.route('/evaluations', evaluationRoutes(repository));
  api.route('/runs', runRoutes(repository, jobs));
  api.route('/diff', diffRoutes(jobs));

  return api;
}
