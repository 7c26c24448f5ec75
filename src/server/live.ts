/**
 * The server's live ingest (src/live/): completed runs are stored in the job pool and a failed one
 * is attributed there, with the offline method (the combined verdict where the store holds a
 * passing run of its task) and, when the server was started with one, an LLM method, so neither
 * the exporters' requests nor the page wait for attribution. A pool that is full (503) is waited
 * on rather than losing the run. A run no importer reads is stored as unreadable (its spans kept)
 * and read again at start or on request (`rereadUnreadable`).
 */
import { HTTPException } from 'hono/http-exception';
import { LiveIngest } from '../live/ingest.js';
import type { SpanBufferOptions } from '../live/span-buffer.js';
import type { StoredLiveRun } from '../live/store-run.js';
import type { JobPool } from './job-pool.js';
import type { AnalysisJobRequest } from './jobs.js';

/** Settings of live ingest (`faultline launch --otlp-…`). */
export interface LiveSettings extends Pick<
  SpanBufferOptions,
  'quietMs' | 'idleTimeoutMs' | 'maxSpansPerRun' | 'maxBufferedSpans'
> {
  /** An LLM method to attribute failed runs with besides the offline one. */
  llm?: { method: string; model?: string; baseUrl?: string };
}

/**
 * As `POST /api/runs/:id/outcome` attributes a failure: the combined verdict where the store holds
 * a passing run of its task, else the offline method.
 */
const FAILED_RUN: AnalysisJobRequest = {
  method: 'offline',
  useGroundTruth: true,
  environmentKey: true,
  failedRun: true,
};

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Runs a job, waiting while the pool is full rather than giving the run up. */
async function whenFree<Value>(run: () => Promise<Value>): Promise<Value> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      const busy = error instanceof HTTPException && error.status === 503;
      if (!busy || attempt >= 600) throw error;
      await sleep(100);
    }
  }
}

/** The methods a failed live run is attributed with: offline, and the server's LLM method. */
function methodsOf(llm: LiveSettings['llm']): AnalysisJobRequest[] {
  return [
    FAILED_RUN,
    ...(llm
      ? [
          {
            method: llm.method,
            useGroundTruth: false,
            environmentKey: true,
            ...(llm.model ? { model: llm.model } : {}),
            ...(llm.baseUrl ? { baseUrl: llm.baseUrl } : {}),
          },
        ]
      : []),
  ];
}

/** Logs an unreadable run, or attributes a stored run that failed, with each method. */
async function afterStored(
  jobs: JobPool,
  log: (line: string) => void,
  methods: readonly AnalysisJobRequest[],
  runId: string,
  stored: StoredLiveRun,
): Promise<void> {
  if (stored.unreadable !== undefined) {
    log(
      `error: live: run ${runId} could not be read (${stored.unreadable}); it is stored with its spans as unreadable and is read again at start or with POST /api/runs/${runId}/reread`,
    );
    return;
  }
  if (stored.outcome !== 'failure' || stored.steps === 0) return;
  for (const request of methods) {
    try {
      const { analysis } = await whenFree(() =>
        jobs.run<'analyse'>({ kind: 'analyse', traceId: stored.traceId, request }),
      );
      log(
        `live: run ${runId} failed; ${analysis.method} blames ${analysis.result.agent ?? 'no agent'} at step ${analysis.result.step ?? '?'}`,
      );
    } catch (error) {
      log(
        `error: live: run ${runId} could not be attributed (${request.failedRun ? 'offline or combined' : request.method}): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/**
 * Reads unreadable runs' kept spans again (one run, or all of them: at server start, after an
 * upgrade) and attributes those that now read as failed runs; answers what each gave.
 */
export async function rereadUnreadable(
  jobs: JobPool,
  log: (line: string) => void,
  settings: Pick<LiveSettings, 'llm'> = {},
  runId?: string,
): Promise<StoredLiveRun[]> {
  const read = await whenFree(() =>
    jobs.run<'reread'>({ kind: 'reread', ...(runId ? { runId } : {}) }),
  );
  const methods = methodsOf(settings.llm);
  for (const stored of read)
    if (stored.unreadable === undefined) {
      log(`live: run ${stored.runId} read again: ${stored.steps} steps`);
      await afterStored(jobs, log, methods, stored.runId, stored);
    }
  return read;
}

/** Reads every unreadable run again in the background (server start), logging what it gave. */
export function rereadAtStart(
  jobs: JobPool,
  log: (line: string) => void,
  llm: LiveSettings['llm'],
): void {
  void rereadUnreadable(jobs, log, llm ? { llm } : {})
    .then((read) => {
      const still = read.filter((stored) => stored.unreadable !== undefined).length;
      if (read.length > 0)
        log(`live: ${read.length - still} of ${read.length} unreadable run(s) read at start`);
    })
    .catch((error: unknown) =>
      log(`error: live: unreadable runs not read again at start: ${String(error)}`),
    );
}

/** Live ingest that stores and attributes through the server's job pool. */
export function createLiveIngest(
  jobs: JobPool,
  log: (line: string) => void,
  settings: LiveSettings = {},
): LiveIngest {
  const { llm, ...buffer } = settings;
  const methods = methodsOf(llm);
  return new LiveIngest({
    ...buffer,
    log,
    process: async (run) => {
      const stored = await whenFree(() =>
        jobs.run<'live-run'>({
          kind: 'live-run',
          traceId: run.traceId,
          document: run.document,
          failed: run.failed,
        }),
      );
      await afterStored(jobs, log, methods, run.traceId, stored);
    },
  });
}
