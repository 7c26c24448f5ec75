/**
 * Live ingest: exports go into the span buffer and are acknowledged at once; a timer completes
 * runs; completed runs wait in a queue and are handed, a few at a time, to `process` (the server
 * stores and attributes them in its job pool), so an exporter never waits for attribution.
 * Counters say what came in, what was stored and what was lost, for the log, `/api/live` and the
 * benchmark.
 */
import {
  SpanBuffer,
  type AddResult,
  type CompletedRun,
  type OtlpDocument,
  type SpanBufferOptions,
} from './span-buffer.js';

/** Settings of live ingest. */
export interface LiveIngestOptions extends Omit<SpanBufferOptions, 'onComplete'> {
  /** Stores (and, for a failed run, attributes) a completed run. */
  process: (run: CompletedRun) => Promise<void>;
  /** Completed runs handled at once (default 2). */
  concurrency?: number;
  /** How often runs are checked for completion, in ms (default a quarter of the quiet period). */
  tickMs?: number;
}

/** What live ingest has done since the server started. */
export interface LiveStats {
  spansAccepted: number;
  spansRejected: number;
  exportsRefused: number;
  runsCompleted: number;
  runsStored: number;
  runsFailedToStore: number;
  runsWaiting: number;
  runsQueued: number;
  spansHeld: number;
}

/** Receives spans and turns them into stored runs. */
export class LiveIngest {
  private readonly buffer: SpanBuffer;
  private readonly queue: CompletedRun[] = [];
  private running = 0;
  private readonly concurrency: number;
  private readonly timer: NodeJS.Timeout;
  private readonly idle: (() => void)[] = [];
  private readonly counts = {
    spansAccepted: 0,
    spansRejected: 0,
    exportsRefused: 0,
    runsCompleted: 0,
    runsStored: 0,
    runsFailedToStore: 0,
  };

  constructor(private readonly options: LiveIngestOptions) {
    this.concurrency = options.concurrency ?? 2;
    this.buffer = new SpanBuffer({
      ...options,
      onComplete: (run) => {
        this.counts.runsCompleted += 1;
        this.queue.push(run);
        this.pump();
      },
    });
    const tickMs = options.tickMs ?? Math.max(20, Math.min(250, (options.quietMs ?? 1000) / 4));
    this.timer = setInterval(() => this.buffer.tick(), tickMs);
    this.timer.unref();
  }

  /** Takes an export (see SpanBuffer.add). */
  add(document: OtlpDocument): AddResult {
    const result = this.buffer.add(document);
    if (result.status === 'full') this.counts.exportsRefused += 1;
    else {
      this.counts.spansAccepted += result.spans;
      this.counts.spansRejected += result.rejected;
    }
    return result;
  }

  /** The counters now. */
  stats(): LiveStats {
    return {
      ...this.counts,
      runsWaiting: this.buffer.waitingRuns,
      runsQueued: this.queue.length + this.running,
      spansHeld: this.buffer.heldSpans,
    };
  }

  /** Resolves once no completed run is queued or being stored. */
  settled(): Promise<void> {
    if (this.queue.length === 0 && this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Stops the timer; with `flush`, completes every waiting run and waits until they are stored. */
  async close(options: { flush?: boolean } = {}): Promise<void> {
    clearInterval(this.timer);
    if (options.flush) {
      this.buffer.flush();
      await this.settled();
    }
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const run = this.queue.shift()!;
      this.running += 1;
      this.options
        .process(run)
        .then(
          () => {
            this.counts.runsStored += 1;
          },
          (error: unknown) => {
            this.counts.runsFailedToStore += 1;
            this.options.log(
              `error: live: run ${run.traceId} (${run.spans} spans) was not stored: ${error instanceof Error ? error.message : String(error)}`,
            );
          },
        )
        .finally(() => {
          this.running -= 1;
          this.buffer.release(run);
          this.pump();
          if (this.queue.length === 0 && this.running === 0)
            for (const resolve of this.idle.splice(0)) resolve();
        });
    }
  }
}
