/**
 * The API's trace routes: upload traces (or a bundled example), list, read and delete them, teach
 * a label, and download every labelled trace. Importing runs as a job, off the request thread.
 */
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { PASTED, type HistoryEntry, type Repository } from '../store/repository.js';
import type { ExamplesResponse, HistoryRow, TraceResponse, TracesResponse } from './api-types.js';
import { EXAMPLES, readExample } from './examples.js';
import type { JobPool } from './job-pool.js';
import { labelMatch } from './label-match.js';
import { pageOf } from './paging.js';
import { validBody } from './request-body.js';

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

/** The trace routes, mounted at /api. */
export function traceRoutes(repository: Repository, jobs: JobPool): Hono {
  const api = new Hono();

  /** Imports a file's bytes and stores every trace in it. */
  const store = (bytes: Uint8Array, name: string, format: string | undefined) =>
    jobs.run<'import'>({ kind: 'import', bytes, name, ...(format ? { format } : {}) });

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

  api.get('/traces', async (context) => {
    const query = context.req.query('q');
    const { items, ...page } = await repository.listHistory({
      ...pageOf(context),
      ...(query ? { query } : {}),
    });
    return context.json({ traces: items.map(historyRow), ...page } satisfies TracesResponse);
  });

  // A trace is answered with the JSON the database holds (a TraceResponse), never parsed here,
  // and the recorded run it is, if any (the page offers a task's methods for it).
  const traceAnswer = async (context: Context, id: string) => {
    const json = await repository.getTraceJson(id);
    if (json === undefined) throw new HTTPException(404, { message: `no trace ${id}` });
    const run = await repository.runs.ofTrace(id);
    const recorded: TraceResponse['run'] = run && {
      runId: run.runId,
      task: run.task,
      outcome: run.outcome,
      taskRuns: run.task === null ? 0 : await repository.tasks.count(run.task),
    };
    const tail = recorded ? `,"run":${JSON.stringify(recorded)}` : '';
    return context.body(`{"trace":${json}${tail}}`, 200, { 'content-type': 'application/json' });
  };

  api.get('/traces/:id', (context) => traceAnswer(context, context.req.param('id')));

  api.delete('/traces/:id', async (context) => {
    if (!(await repository.deleteTrace(context.req.param('id'))))
      throw new HTTPException(404, { message: `no trace ${context.req.param('id')}` });
    return context.json({ deleted: true });
  });

  // Teach it: a person's verdict on a trace, stored as its label (and cleared with DELETE).
  api.put('/traces/:id/label', async (context) => {
    const id = context.req.param('id');
    const label = await validBody(context.req.raw, userLabelSchema, 'label');
    const hasStep = await repository.hasStep(id, label.step);
    if (hasStep === undefined) throw new HTTPException(404, { message: `no trace ${id}` });
    if (!hasStep)
      throw new HTTPException(400, {
        message: `invalid label: the trace has no step ${label.step}`,
      });
    await repository.setUserLabel(id, label);
    return traceAnswer(context, id);
  });

  api.delete('/traces/:id/label', async (context) => {
    const id = context.req.param('id');
    if (!(await repository.setUserLabel(id, null)))
      throw new HTTPException(404, { message: `no trace ${id}` });
    return traceAnswer(context, id);
  });

  // Every labelled trace as one canonical JSON file: put it in a folder for `faultline train --data`.
  api.get('/labels', async (context) => {
    const body = await jobs.run<'labels'>({ kind: 'labels' });
    context.header('content-disposition', 'attachment; filename="faultline-labelled-traces.json"');
    context.header('content-type', 'application/json');
    return context.body(body);
  });

  return api;
}
