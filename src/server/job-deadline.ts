/**
 * What a job past its deadline is answered with, and the 503 of a job that may be sent again. A job is stopped when it runs longer than any
 * real trace needs (a hostile file built to make a parser crawl, a pathological run), so that one
 * input never holds a worker, and the answer names what was stopped and what to do.
 */
import { HTTPException } from 'hono/http-exception';
import type { Job } from './jobs.js';

/** How long a job may run by default: a 500 MB trace imports in well under a minute. */
export const DEFAULT_JOB_DEADLINE_MS = 120_000;

/** What a job was working on, as a person would name it. */
export function describeJob(job: Job): string {
  switch (job.kind) {
    case 'import':
      return `the upload ${job.name}`;
    case 'analyse':
      return `the analysis of trace ${job.traceId}`;
    case 'diff':
      return `the diff of traces ${job.failedId} and ${job.passedId}`;
    case 'live-run':
      return `the run ${job.traceId} received as spans`;
    case 'outcome':
      return `the outcome of run ${job.runId}`;
    case 'open-record':
      return `record ${job.index} of evaluation ${job.evaluationId}`;
    case 'task-spectrum':
      return `the spectrum of the latest ${job.limit} runs of task ${job.task}`;
    case 'labels':
      return 'the labelled traces';
    case 'reread':
      return job.runId ? `the re-reading of run ${job.runId}` : 'the re-reading of unreadable runs';
  }
}

/** The answer to a job stopped at its deadline (422: the input, not the server, is at fault). */
export function deadlineError(job: Job, deadlineMs: number): HTTPException {
  const seconds = Math.round(deadlineMs / 100) / 10;
  return new HTTPException(422, {
    message: `${describeJob(job)} was stopped after ${seconds} s, the most one job may take; the input may be built to stall a parser, or too large: split it into smaller traces (faultline launch --job-timeout raises the limit)`,
  });
}

/** A 503 answer with Retry-After: the job may be sent again in a moment. */
export function busy(message: string): HTTPException {
  return new HTTPException(503, {
    res: new Response(JSON.stringify({ error: message }), {
      status: 503,
      headers: { 'content-type': 'application/json', 'retry-after': '1' },
    }),
  });
}

/** The answer to a job whose worker was stopped because another job on it ran past its deadline. */
export const stoppedForDeadline = () =>
  busy('another job on the same worker ran past its deadline and was stopped; try again');
