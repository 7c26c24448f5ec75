/**
 * Keeps the runs the proxy records and writes each, as it grows, to `<folder>/<run>.json`
 * (canonical trace JSON, replaced atomically) and to the page's database. Writes are coalesced: a
 * run that changes is written once its burst of calls settles (within `flushMs`), and every run
 * is written on close, so a busy run does not rewrite its whole file on every call.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../../errors.js';
import type { RunStore } from '../../store/runs.js';
import { loadTrace } from '../../trace/load.js';
import type { Trace, TraceOutcome } from '../../trace/model.js';
import { RunBuilder, type RunOptions } from './run-builder.js';

/** Settings of a recorder. */
export interface RecorderOptions {
  /** Folder the runs are written to; none writes no files. */
  folder?: string;
  /** The page's database; none stores nothing there. */
  store?: RunStore;
  /** Longest wait before a changed run is written (default 100 ms). */
  flushMs?: number;
  /** Settings every new run gets. */
  run?: RunOptions;
  /** Progress and problems, one line each. */
  log?: (line: string) => void;
  /** Adds to each run as it is written (an injection's label and record, inject/injector.ts). */
  decorate?: (trace: Trace) => Trace;
  /**
   * A written run with no call for this long is let go from memory (default 10 minutes); a later
   * call of it continues it from its file or the database.
   */
  idleMs?: number;
}

interface Kept {
  builder: RunBuilder;
  written: number;
  timer?: NodeJS.Timeout;
  changedAt: number;
  /** The write in progress: a run's writes go one after another, so the last one stands. */
  writing?: Promise<unknown>;
}

/** The file a run is written to. */
export const runFile = (folder: string, runId: string) => join(folder, `${runId}.json`);

/** Records runs and writes them out. */
export class Recorder {
  private readonly runs = new Map<string, Promise<Kept>>();
  /** When each run was last asked for: a call that has asked is never let go of under it. */
  private readonly askedAt = new Map<string, number>();
  private readonly log: (line: string) => void;

  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: RecorderOptions = {}) {
    this.log = options.log ?? (() => {});
    if (options.folder) mkdirSync(options.folder, { recursive: true });
    const idleMs = options.idleMs ?? 600_000;
    this.sweeper = setInterval(() => void this.letGo(idleMs), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  /** Lets go of written runs idle for `idleMs`, so a long-lived proxy does not keep every run. */
  private async letGo(idleMs: number): Promise<void> {
    const now = Date.now();
    for (const [runId, kept] of this.runs) {
      const entry = await kept;
      if (this.runs.get(runId) !== kept) continue;
      const last = Math.max(entry.changedAt, this.askedAt.get(runId) ?? 0);
      const idle = now - last >= idleMs && entry.builder.pending === 0 && !entry.timer;
      if (idle && (this.options.folder || this.options.store)) {
        await this.write(entry, true);
        this.runs.delete(runId);
      }
    }
  }

  /** The run `runId`, continuing one already written under that id (a proxy restarted mid-run). */
  run(runId: string): Promise<RunBuilder> {
    this.askedAt.set(runId, Date.now());
    let kept = this.runs.get(runId);
    if (!kept) {
      kept = this.open(runId);
      this.runs.set(runId, kept);
    }
    return kept.then((entry) => entry.builder);
  }

  private async open(runId: string): Promise<Kept> {
    const file = this.options.folder ? runFile(this.options.folder, runId) : undefined;
    let earlier: Trace | undefined;
    try {
      earlier = await this.options.store?.trace(runId);
      if (!earlier && file && existsSync(file)) earlier = await loadTrace(file);
    } catch (error) {
      this.log(
        `run ${runId}: the earlier recording could not be read (${describeError(error)}); starting it afresh`,
      );
    }
    const builder = earlier
      ? RunBuilder.resume(earlier, this.options.run)
      : new RunBuilder(runId, this.options.run);
    if (earlier) this.log(`run ${runId}: continuing the recording (${earlier.steps.length} steps)`);
    return { builder, written: -1, changedAt: Date.now() };
  }

  /** Notes that a run changed; it is written within `flushMs`. */
  changed(runId: string): void {
    const kept = this.runs.get(runId);
    if (!kept) return;
    void kept.then((entry) => {
      entry.changedAt = Date.now();
      if (entry.timer) return;
      entry.timer = setTimeout(() => {
        entry.timer = undefined;
        void this.write(entry);
      }, this.options.flushMs ?? 100);
    });
  }

  /** Sets a run's outcome and writes it at once. */
  async setOutcome(runId: string, outcome: TraceOutcome): Promise<Trace> {
    const builder = await this.run(runId);
    builder.outcome = outcome;
    builder.version += 1;
    return this.flush(runId);
  }

  /** Writes a run now; returns its trace. */
  async flush(runId: string): Promise<Trace> {
    const entry = await this.runs.get(runId);
    if (!entry) throw new Error(`no run ${runId}`);
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    return this.write(entry, true);
  }

  /** The ids of the runs recorded so far (those let go of included). */
  runIds(): string[] {
    return [...this.askedAt.keys()];
  }

  /** Writes every run that changed, and stops letting go of idle runs. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const runId of this.runs.keys()) await this.flush(runId);
  }

  /** The file a run is written to, if files are written. */
  fileOf(runId: string): string | undefined {
    return this.options.folder ? runFile(this.options.folder, runId) : undefined;
  }

  /** Writes a run after the write in progress, if any (store and file failures are logged). */
  private write(entry: Kept, force = false): Promise<Trace> {
    const next = (entry.writing ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.writeNow(entry, force));
    entry.writing = next;
    return next;
  }

  private async writeNow(entry: Kept, force: boolean): Promise<Trace> {
    const { builder } = entry;
    let trace = this.options.decorate?.(builder.toTrace()) ?? builder.toTrace();
    if (!force && entry.written === builder.version) return trace;
    entry.written = builder.version;
    const file = this.fileOf(builder.id);
    try {
      if (this.options.store) {
        const stored = await this.options.store.save(trace, file ? { file } : {});
        // An outcome given meanwhile (on the page, by `faultline outcome`) is the run's outcome.
        if (stored.outcome !== trace.outcome && builder.outcome === 'unknown') {
          builder.outcome = stored.outcome;
          trace = { ...trace, outcome: stored.outcome };
        }
      }
    } catch (error) {
      this.log(`run ${builder.id}: could not store it in the database (${describeError(error)})`);
    }
    if (file) {
      try {
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, `${JSON.stringify(trace, null, 2)}\n`);
        renameSync(temporary, file);
      } catch (error) {
        this.log(`run ${builder.id}: could not write ${file} (${describeError(error)})`);
      }
    }
    return trace;
  }
}
