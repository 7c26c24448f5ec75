/**
 * The server's live ingest (src/live/): completed runs are stored in the job pool and a failed one
 * is attributed there, with the offline method and, when the server was started with one, an LLM
 * method, so neither the exporters' requests nor the page wait for attribution. A pool that is full
 * (503) is waited on rather than losing the run.
 */
import { HTTPException } from 'hono/http-exception';
import { LiveIngest } from '../live/ingest.js';
import type { SpanBufferOptions } from '../live/span-buffer.js';
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

/** The offline method, as `POST /api/runs/:id/outcome` attributes a failure. */
const OFFLINE: AnalysisJobRequest = {
  method: 'offline',
  useGroundTruth: true,
  environmentKey: true,
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

/** Live ingest that stores and attributes through the server's job pool. */
export function createLiveIngest(
  jobs: JobPool,
  log: (line: string) => void,
  settings: LiveSettings = {},
): LiveIngest {
  const { llm, ...buffer } = settings;
  const methods: AnalysisJobRequest[] = [
    OFFLINE,
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
      if (stored.outcome !== 'failure' || stored.steps === 0) return;
      for (const request of methods) {
        try {
          const { analysis } = await whenFree(() =>
            jobs.run<'analyse'>({ kind: 'analyse', traceId: stored.traceId, request }),
          );
          log(
            `live: run ${run.traceId} failed; ${request.method} blames ${analysis.result.agent ?? 'no agent'} at step ${analysis.result.step ?? '?'}`,
          );
        } catch (error) {
          log(
            `error: live: run ${run.traceId}: ${request.method} could not attribute it: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    },
  });
}
