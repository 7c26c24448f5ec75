/**
 * The server's heavy work as jobs: importing an upload, analysing a stored trace, diffing two,
 * storing a run received as spans (src/live/) or its outcome, opening an evaluated trace from its
 * file, a task's spectrum over its latest runs, and the labelled traces' download. A job reads and writes the database itself and returns
 * only its answer, so it can run in a worker thread (job-pool.ts) without a large trace being
 * parsed on the thread that answers requests (the download crosses once, as the text it sends).
 */
import { HTTPException } from 'hono/http-exception';
import { performance } from 'node:perf_hooks';
import { getMethod, needsRuns } from '../attribution/registry.js';
import type { Repository } from '../store/repository.js';
import { readTracesFromBytes } from '../trace/load.js';
import { diffTraces } from '../attribution/diverge/diff.js';
import { rereadRun, storeLiveRun, type StoredLiveRun } from '../live/store-run.js';
import type { OtlpDocument } from '../live/span-buffer.js';
import {
  failedRunMethod,
  markOutcome,
  storedRunsOfTask,
  type MarkedOutcome,
} from '../recording/replay/outcome.js';
import type { Trace, TraceOutcome } from '../trace/model.js';
import type { AnalysisResponse, DiffResponse, TaskResponse, UploadResponse } from './api-types.js';
import { labelMatch } from './label-match.js';
import { openRecord } from './open-record.js';
import { taskSpectrum, type TaskSpectrumRequest } from './task-spectrum.js';

/** What an analysis asks for, as the route has checked it. */
export interface AnalysisJobRequest {
  method: string;
  useGroundTruth: boolean;
  model?: string;
  baseUrl?: string;
  /** A key the request brought: used for this call only, never stored. */
  apiKey?: string;
  /** Whether the server's own keys may be used (false for an endpoint the request chose). */
  environmentKey: boolean;
  /**
   * For a recorded run that failed, as `POST /api/runs/:id/outcome` attributes it: the combined
   * verdict where the store holds a passing run of its task, else `method` (live runs).
   */
  failedRun?: boolean;
}

/** A unit of work. */
export type Job =
  | { kind: 'import'; bytes: Uint8Array; name: string; format?: string }
  | { kind: 'analyse'; traceId: string; request: AnalysisJobRequest }
  | { kind: 'diff'; failedId: string; passedId: string }
  | { kind: 'live-run'; traceId: string; document: OtlpDocument; failed: boolean }
  | { kind: 'outcome'; runId: string; outcome: TraceOutcome; attribute?: boolean }
  /** Reads unreadable runs' kept spans again: one run, or every one (at most 1,000). */
  | { kind: 'reread'; runId?: string }
  | { kind: 'open-record'; evaluationId: string; index: number }
  /** A task's latest runs and their spectrum (task-spectrum.ts). */
  | ({ kind: 'task-spectrum' } & TaskSpectrumRequest)
  | { kind: 'labels' };

/** What each kind of job answers. */
export interface JobResults {
  import: UploadResponse;
  analyse: AnalysisResponse;
  diff: DiffResponse;
  'live-run': StoredLiveRun;
  reread: StoredLiveRun[];
  outcome: MarkedOutcome;
  'open-record': { status: 200 | 201; answer: AnalysisResponse };
  'task-spectrum': TaskResponse;
  /** Every labelled trace, as the JSON text of one array. */
  labels: string;
}

/** Imports a file's bytes and stores every trace in it (JSON Lines: every readable line). */
async function importUpload(
  repository: Repository,
  job: Extract<Job, { kind: 'import' }>,
): Promise<UploadResponse> {
  // A JSON Lines file with a broken line: the other lines are stored, the broken one reported.
  const { traces, skipped } = await readTracesFromBytes(
    job.bytes,
    job.name,
    job.format ? { format: job.format } : {},
  );
  const stored: UploadResponse['traces'] = [];
  // In order, one after another: the same content twice in a file is stored once.
  for (const trace of traces)
    stored.push({
      ...(await repository.saveTrace(
        trace,
        traces.length > 1 ? `${job.name} (${trace.id})` : job.name,
      )),
      agents: trace.agents,
      labels: trace.labels ?? null,
    });
  return { traces: stored, skipped: skipped.map((error) => error.message) };
}

/**
 * The method an analysis runs and, for one that compares a run with the other runs of its task
 * (combined, spectrum), those runs from the store; a failed run received live is attributed as
 * `POST /api/runs/:id/outcome` attributes one (`failedRunMethod`).
 */
async function methodAndRuns(
  repository: Repository,
  traceId: string,
  request: AnalysisJobRequest,
): Promise<{ method: string; runs?: Trace[] }> {
  if (!request.failedRun && !needsRuns(request.method)) return { method: request.method };
  const run = await repository.runs.ofTrace(traceId);
  if (request.failedRun) {
    const chosen = run ? await failedRunMethod(repository, run) : undefined;
    return chosen?.runs ? chosen : { method: request.method };
  }
  const runs = run ? await storedRunsOfTask(repository, run) : [];
  if (runs.length < 2)
    throw new HTTPException(400, {
      message: `method ${request.method} compares a run with the other runs of its task, and the store holds none for trace ${traceId} (runs recorded by the proxy or rerun, or received over OTLP, are kept by task: GET /api/tasks)`,
    });
  return { method: request.method, runs };
}

/** Attributes a stored trace and stores the analysis. */
async function analyse(
  repository: Repository,
  job: Extract<Job, { kind: 'analyse' }>,
): Promise<AnalysisResponse> {
  const trace = await repository.getTrace(job.traceId);
  if (!trace) throw new HTTPException(404, { message: `no trace ${job.traceId}` });
  const { request } = job;
  const { method: methodName, runs } = await methodAndRuns(repository, job.traceId, request);
  const method = getMethod(methodName, {
    llm: {
      ...(request.model ? { model: request.model } : {}),
      ...(request.baseUrl ? { baseUrl: request.baseUrl } : {}),
      ...(request.apiKey ? { apiKey: request.apiKey } : {}),
      ...(request.environmentKey ? {} : { environmentKey: false }),
    },
  });
  const started = performance.now();
  const result = await method.attribute(trace, {
    useGroundTruth: request.useGroundTruth,
    ...(runs ? { runs } : {}),
  });
  // Stored as asked, without the key.
  const settings = {
    method: methodName,
    useGroundTruth: request.useGroundTruth,
    ...(request.model ? { model: request.model } : {}),
    ...(request.baseUrl ? { baseUrl: request.baseUrl } : {}),
  };
  const analysis = await repository.saveAnalysis(
    job.traceId,
    settings,
    result,
    performance.now() - started,
  );
  return { analysis, match: labelMatch(result, trace.labels) };
}

/** Where a failed stored trace parts from a passing one (the page's two-column view). */
async function diff(
  repository: Repository,
  job: Extract<Job, { kind: 'diff' }>,
): Promise<DiffResponse> {
  const [failed, passed] = await Promise.all(
    [job.failedId, job.passedId].map(async (id) => {
      const trace = await repository.getTrace(id);
      if (!trace) throw new HTTPException(404, { message: `no trace ${id}` });
      return trace;
    }),
  );
  const result = diffTraces(failed!, passed!);
  // The runs are named by their ids in the store, so that the page can link to them.
  result.failed.id = job.failedId;
  result.passed.id = job.passedId;
  return { diff: result };
}

/** Runs a job against a repository. */
export async function runJob(repository: Repository, job: Job): Promise<JobResults[Job['kind']]> {
  switch (job.kind) {
    case 'import':
      return importUpload(repository, job);
    case 'analyse':
      return analyse(repository, job);
    case 'diff':
      return diff(repository, job);
    case 'live-run':
      return storeLiveRun(repository.runs, job);
    case 'reread': {
      const ids = job.runId ? [job.runId] : await repository.unreadableRuns.ids();
      const read: StoredLiveRun[] = [];
      for (const id of ids) {
        const stored = await rereadRun(repository.runs, id);
        if (stored) read.push(stored);
      }
      return read;
    }
    case 'outcome':
      // Storing the outcome, rewriting the run's file and attributing a failure.
      return markOutcome(repository.runs, repository, job.runId, job.outcome, {
        ...(job.attribute !== undefined ? { attribute: job.attribute } : {}),
      });
    case 'open-record':
      return openRecord(repository, job.evaluationId, job.index);
    case 'task-spectrum':
      return taskSpectrum(repository, job);
    case 'labels':
      // Built where the traces are parsed, so a large store never stalls the request thread.
      return JSON.stringify(await repository.labelledTraces());
  }
}
