/**
 * Runs a handler over every trace in the given files and folders. A file that cannot be read is
 * reported on one line and skipped; the caller learns how many failed to set the exit code.
 */
import { UserError } from '../errors.js';
import { loadBatch, shownPaths, type LoadOptions } from '../trace/load.js';
import type { Trace } from '../trace/model.js';
import { reportError } from './errors.js';

/** Counts of a batch run. */
export interface BatchOutcome {
  files: number;
  traces: number;
  failedFiles: number;
}

/** Calls `handle` for each trace in order; returns the counts. */
export async function forEachTrace(
  paths: readonly string[],
  options: LoadOptions,
  handle: (trace: Trace, file: string) => Promise<void> | void,
): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { files: 0, traces: 0, failedFiles: 0 };
  for await (const result of loadBatch(paths, options)) {
    outcome.files += 1;
    if (!result.ok) {
      outcome.failedFiles += 1;
      reportError(result.error);
      continue;
    }
    for (const trace of result.traces) {
      outcome.traces += 1;
      await handle(trace, result.file);
    }
  }
  if (outcome.files === 0)
    throw new UserError(
      `no trace files found in ${shownPaths(paths)} (looked for .json, .jsonl, .ndjson, .db, each also as .gz)`,
    );
  return outcome;
}

/** Prints the batch summary line when some files failed, and returns the exit code. */
export function finishBatch(outcome: BatchOutcome): number {
  if (outcome.failedFiles === 0) return 0;
  if (outcome.files > 1)
    process.stderr.write(
      `faultline: ${outcome.failedFiles} of ${outcome.files} file${outcome.files === 1 ? '' : 's'} could not be read\n`,
    );
  return 2;
}
