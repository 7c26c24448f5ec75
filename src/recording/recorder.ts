/**
 * Keeps the runs the proxy records and writes each, as it grows, to `<folder>/<run>.json`
 * (canonical trace JSON, replaced atomically) and to the page's database. Writes are coalesced: a
 * run that changes is written once its burst of calls settles (within `flushMs`), and every run
 * is written on close, so a busy run does not rewrite its whole file on every call.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../errors.js';
import type { RunStore } from '../store/runs.js';
import { loadTrace } from '../trace/load.js';
import type { Trace, TraceOutcome } from '../trace/model.js';
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
}

interface Kept {
  builder: RunBuilder;
  written: number;
  timer?: NodeJS.Timeout;
}

/** The file a run is written to. */
export const runFile = (folder: string, runId: string) => join(folder, `${runId}.json`);

/** Records runs and writes them out. */
export class Recorder {
  private readonly runs = new Map<string, Promise<Kept>>();
  private readonly log: (line: string) => void;

  constructor(private readonly options: RecorderOptions = {}) {
    this.log = options.log ?? (() => {});
    if (options.folder) mkdirSync(options.folder, { recursive: true });
  }

  /** The run `runId`, continuing one already written under that id (a proxy restarted mid-run). */
  run(runId: string): Promise<RunBuilder> {
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
      earlier = this.options.store?.trace(runId);
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
    return { builder, written: -1 };
  }

  /** Notes that a run changed; it is written within `flushMs`. */
  changed(runId: string): void {
    const kept = this.runs.get(runId);
    if (!kept) return;
    void kept.then((entry) => {
      if (entry.timer) return;
      entry.timer = setTimeout(() => {
        entry.timer = undefined;
        this.write(entry);
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

  /** The ids of the runs recorded so far. */
  runIds(): string[] {
    return [...this.runs.keys()];
  }

  /** Writes every run that changed. */
  async close(): Promise<void> {
    for (const runId of this.runs.keys()) await this.flush(runId);
  }

  /** The file a run is written to, if files are written. */
  fileOf(runId: string): string | undefined {
    return this.options.folder ? runFile(this.options.folder, runId) : undefined;
  }

  private write(entry: Kept, force = false): Trace {
    const { builder } = entry;
    let trace = builder.toTrace();
    if (!force && entry.written === builder.version) return trace;
    entry.written = builder.version;
    const file = this.fileOf(builder.id);
    try {
      if (this.options.store) {
        const stored = this.options.store.save(trace, file ? { file } : {});
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
