/**
 * Runs the server's jobs (jobs.ts) off the thread that answers requests: a few worker threads,
 * each with its own database connection, and a bounded number of jobs in flight. When the bound
 * is reached a job is refused at once with 503 and Retry-After, so a burst of uploads neither
 * queues without limit nor stalls `/api/health` and the lists. No input can hold the pool: a job
 * goes to an idle worker, and when every worker has held a job for over 5 s a spare one
 * starts (up to SPARE_WORKERS more, each stopped again once idle), so a long job never makes a
 * short one wait long; and a job that
 * runs past its deadline is answered with an error naming what it was working on, its worker
 * stopped and replaced (job-deadline.ts). Without a database file (an in-memory one) or with no
 * workers, jobs run on the calling thread under the same bound, with no deadline.
 */
import { HTTPException } from 'hono/http-exception';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Repository } from '../store/repository.js';
import type { ErrorAnswer } from './http-errors.js';
import {
  busy,
  deadlineError,
  DEFAULT_JOB_DEADLINE_MS,
  stoppedForDeadline,
} from './job-deadline.js';
import { runJob, type Job, type JobResults } from './jobs.js';

/** A job as posted to a worker. */
export interface JobMessage {
  id: number;
  job: Job;
}

/** A worker's answer to one job. */
export type JobReply =
  | { ready: true }
  | { id: number; ok: true; value: JobResults[Job['kind']] }
  | { id: number; ok: false; answer: ErrorAnswer };

/** Settings of the pool. */
export interface JobPoolOptions {
  /** The database file the workers open; without one (or with `:memory:`) jobs run on this thread. */
  databaseFile?: string;
  /** The repository jobs use when they run on this thread. */
  repository: Repository;
  /** Worker threads (default: one per core but one, at least 1, at most 4; 0 runs inline). */
  workers?: number;
  /** Jobs running or waiting at most; more are refused with 503 (default 64). */
  maxPending?: number;
  /** Longest a job may run in a worker, in milliseconds (default DEFAULT_JOB_DEADLINE_MS). */
  jobDeadlineMs?: number;
  /** How long the least busy worker's oldest job runs before a spare starts (default 5 s). */
  spareAfterMs?: number;
  log: (line: string) => void;
}

/** Default number of workers: leave a core to the thread that answers requests. */
export const defaultWorkers = () => Math.max(1, Math.min(4, availableParallelism() - 1));

/** How a worker is started: the compiled file, or under tsx (tests, `npm run` from source). */
function startWorker(databaseFile: string): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  if (!fromSource)
    return new Worker(new URL('./job-worker.js', import.meta.url), {
      workerData: { databaseFile },
    });
  // Worker threads do not inherit tsx's loader hooks: the worker registers them first.
  const entry = new URL('./job-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`,
    { eval: true, workerData: { databaseFile } },
  );
}

interface Pending {
  resolve: (value: JobResults[Job['kind']]) => void;
  reject: (error: unknown) => void;
  /** When its worker was ready to run it (Infinity while the worker starts). */
  since: number;
}

interface Slot {
  worker: Worker;
  running: Map<number, Pending>;
  startedAt: number;
  /** Quick deaths in a row before this worker started. */
  failures: number;
  /** A spare, started because every worker was busy: stopped once idle, never restarted. */
  spare: boolean;
  /** Why the pool stopped this worker itself, if it did (its exit is then no crash). */
  stoppedBecause?: 'deadline' | 'idle';
  /** The timer that stops an idle spare. */
  idleTimer?: NodeJS.Timeout;
  /** Whether the worker has opened its database and taken jobs. */
  ready: boolean;
  /** Deadlines to start once it is ready: a worker's start is not its first jobs' time. */
  onReady: (() => void)[];
}

/** Workers started beside the usual ones while every one is held by a long job. */
const SPARE_WORKERS = 2;
// How long a worker's oldest job has run before a spare starts. At 1 s, OTLP ingest at 5,000 spans/s
// started spares, and SQLite's writers locked each other out (9,000 of 30,000 runs not stored).
const SPARE_AFTER_MS = 5000;
const SPARE_IDLE_MS = 30_000; // how long a spare waits idle for another job before it stops

/** The pool. */
export class JobPool {
  private readonly slots: Slot[] = [];
  private readonly maxPending: number;
  private pending = 0;
  private nextId = 1;
  private closed = false;
  private readonly deadlineMs: number;
  private databaseFile = '';
  /** Jobs run on the calling thread (no database file to give workers, or no workers). */
  private readonly inline: boolean;

  constructor(private readonly options: JobPoolOptions) {
    this.maxPending = options.maxPending ?? 64;
    this.deadlineMs = options.jobDeadlineMs ?? DEFAULT_JOB_DEADLINE_MS;
    const { databaseFile } = options;
    this.inline =
      databaseFile === undefined || databaseFile === ':memory:' || options.workers === 0;
    if (databaseFile === undefined || this.inline) return;
    this.databaseFile = databaseFile;
    const workers = options.workers ?? defaultWorkers();
    for (let index = 0; index < workers; index += 1) this.slots.push(this.startSlot(databaseFile));
  }

  /** Jobs running or waiting now. */
  get inFlight(): number {
    return this.pending;
  }

  /** Runs a job; refuses it with 503 when the pool is full. */
  async run<Kind extends Job['kind']>(
    job: Extract<Job, { kind: Kind }>,
  ): Promise<JobResults[Kind]> {
    if (this.closed) throw busy('the server is shutting down');
    if (this.pending >= this.maxPending)
      throw busy(`the server is busy with ${this.pending} jobs; try again in a moment`);
    this.pending += 1;
    try {
      if (this.inline) return (await runJob(this.options.repository, job)) as JobResults[Kind];
      const slot = this.slotFor();
      if (!slot) throw busy('no job worker is running (see the server log); try again in a moment');
      return (await this.post(slot, job)) as JobResults[Kind];
    } finally {
      this.pending -= 1;
    }
  }

  /** Stops the workers; jobs still running are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  /** An idle worker; else a spare started for the job while there is room; else the least busy. */
  private slotFor(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.slots) if (!best || slot.running.size < best.running.size) best = slot;
    if (!best || best.running.size === 0) return best;
    let oldest = Infinity;
    for (const pending of best.running.values()) oldest = Math.min(oldest, pending.since);
    if (Date.now() - oldest < (this.options.spareAfterMs ?? SPARE_AFTER_MS)) return best;
    const spares = this.slots.filter((slot) => slot.spare).length;
    if (spares >= SPARE_WORKERS) return best;
    const spare = this.startSlot(this.databaseFile, 0, true);
    this.slots.push(spare);
    return spare;
  }

  private post(slot: Slot, job: Job): Promise<JobResults[Job['kind']]> {
    const id = this.nextId;
    this.nextId += 1;
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    return new Promise<JobResults[Job['kind']]>((resolve, reject) => {
      // Past its deadline a job is answered with an error, and its worker (which may be stuck in a
      // loop no message can interrupt) is stopped; the worker's other jobs are refused to retry.
      let deadline: NodeJS.Timeout | undefined;
      const arm = () => {
        const pending = slot.running.get(id);
        if (!pending) return;
        pending.since = Date.now();
        deadline = setTimeout(() => {
          if (!slot.running.has(id)) return;
          slot.running.delete(id);
          const error = deadlineError(job, this.deadlineMs);
          reject(error);
          this.options.log(`error: ${error.message}`);
          slot.stoppedBecause = 'deadline';
          void slot.worker.terminate();
        }, this.deadlineMs);
        deadline.unref();
      };
      const settle =
        <Value>(done: (value: Value) => void) =>
        (value: Value) => {
          clearTimeout(deadline);
          done(value);
          this.retireWhenIdle(slot);
        };
      slot.running.set(id, { resolve: settle(resolve), reject: settle(reject), since: Infinity });
      if (slot.ready) arm();
      else slot.onReady.push(arm);
      // An upload's bytes move to the worker rather than being copied (when they fill their
      // buffer: a slice of a shared one is copied).
      const whole =
        job.kind === 'import' &&
        job.bytes.byteOffset === 0 &&
        job.bytes.byteLength === job.bytes.buffer.byteLength;
      const transfer = whole ? [job.bytes.buffer as ArrayBuffer] : [];
      try {
        slot.worker.postMessage({ id, job } satisfies JobMessage, transfer);
      } catch (error) {
        slot.running.delete(id);
        reject(error);
      }
    });
  }

  /** Stops a spare once it has waited SPARE_IDLE_MS with no job. */
  private retireWhenIdle(slot: Slot): void {
    if (!slot.spare || slot.running.size > 0 || this.closed) return;
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (slot.running.size > 0) return;
      slot.stoppedBecause = 'idle';
      void slot.worker.terminate();
    }, SPARE_IDLE_MS);
    slot.idleTimer.unref();
  }

  private startSlot(databaseFile: string, failures = 0, spare = false): Slot {
    const slot: Slot = {
      worker: startWorker(databaseFile),
      running: new Map(),
      startedAt: Date.now(),
      failures,
      spare,
      ready: false,
      onReady: [],
    };
    slot.worker.on('message', (reply: JobReply) => {
      if ('ready' in reply) {
        slot.ready = true;
        for (const arm of slot.onReady.splice(0)) arm();
        return;
      }
      const pending = slot.running.get(reply.id);
      if (!pending) return;
      slot.running.delete(reply.id);
      if (reply.ok) return pending.resolve(reply.value);
      for (const line of reply.answer.logLines) this.options.log(line);
      pending.reject(new HTTPException(reply.answer.status, { message: reply.answer.message }));
    });
    // A worker that dies (out of memory, a crash in native code) fails its jobs, not the server;
    // a new one takes its place.
    slot.worker.on('error', (error) => {
      this.options.log(`error: a job worker failed: ${error.message}`);
    });
    slot.worker.on('exit', (code) => {
      for (const pending of slot.running.values())
        pending.reject(
          this.closed
            ? busy('the server is shutting down')
            : slot.stoppedBecause === 'deadline'
              ? stoppedForDeadline()
              : !slot.ready
                ? // It never opened its database (a store that is down): the job can be sent again.
                  busy('no job worker could start (see the server log); try again in a moment')
                : new HTTPException(500, {
                    message: `the job's worker stopped (exit code ${code}); see the server log`,
                  }),
        );
      slot.running.clear();
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      if (this.closed || slot.spare) return;
      if (slot.stoppedBecause === 'deadline') {
        this.slots.push(this.startSlot(databaseFile));
        return;
      }
      // A worker that cannot start (a database it cannot open) would die again at once: each quick
      // death doubles the wait before the next start, up to a minute; a worker that lived a minute
      // starts the count again.
      const quick = Date.now() - slot.startedAt < 60_000;
      const failures = quick ? slot.failures + 1 : 0;
      const delay = failures === 0 ? 0 : Math.min(60_000, 250 * 2 ** (failures - 1));
      if (failures > 0)
        this.options.log(`error: a job worker stopped; the next starts in ${delay} ms`);
      const restart = setTimeout(() => {
        if (!this.closed) this.slots.push(this.startSlot(databaseFile, failures));
      }, delay);
      restart.unref();
    });
    return slot;
  }
}
