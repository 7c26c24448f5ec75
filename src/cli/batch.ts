/**
 * Runs a handler over every trace in the given files and folders. A file that cannot be read is
 * reported on one line and skipped, and so is each broken line of a JSON Lines file (its other
 * lines are read); the caller learns how many files failed, whole or in part, to set the exit code.
 */
import { describeError, ProviderError, TraceFormatError, UserError } from '../errors.js';
import { loadBatch, shownAs, shownPaths, type LoadOptions } from '../trace/load.js';
import type { Trace } from '../trace/model.js';
import { reportError } from './errors.js';

/** Counts of a batch run. */
export interface BatchOutcome {
  files: number;
  traces: number;
  /** Files that could not be read, whole or in part (a JSON Lines file with broken lines). */
  failedFiles: number;
  /** Of the failed files, those read in part: their broken lines skipped, their others read. */
  partlyReadFiles?: number;
}

/** Calls `handle` for each trace in order; returns the counts. */
export async function forEachTrace(
  paths: readonly string[],
  options: LoadOptions,
  handle: (trace: Trace, file: string) => Promise<void> | void,
): Promise<BatchOutcome> {
  const outcome = { files: 0, traces: 0, failedFiles: 0, partlyReadFiles: 0 };
  for await (const result of loadBatch(paths, options)) {
    outcome.files += 1;
    if (!result.ok) {
      outcome.failedFiles += 1;
      reportError(result.error);
      continue;
    }
    if (result.skipped.length > 0) {
      outcome.failedFiles += 1;
      outcome.partlyReadFiles += 1;
      for (const error of result.skipped) reportError(error);
    }
    let handled = true;
    for (const trace of result.traces) {
      outcome.traces += 1;
      try {
        await handle(trace, result.file);
      } catch (error) {
        // A trace that breaks its handler costs that trace, named, and never its neighbours.
        if (error instanceof UserError || error instanceof ProviderError) throw error;
        reportError(
          new TraceFormatError(
            shownAs(result.file),
            `could not be handled (${describeError(error)})`,
            { cause: error },
          ),
        );
        handled = false;
      }
    }
    if (!handled && result.skipped.length === 0) outcome.failedFiles += 1;
  }
  if (outcome.files === 0)
    throw new UserError(
      `no trace files found in ${shownPaths(paths)} (looked for .json, .jsonl, .ndjson, .db, each also as .gz)`,
    );
  return outcome;
}

/**
 * Prints the batch summary line when some files failed (whole or in part), and returns the exit
 * code: 2 when any input failed, as for bad input.
 */
export function finishBatch(outcome: BatchOutcome): number {
  if (outcome.failedFiles === 0) return 0;
  const partly = outcome.partlyReadFiles ?? 0;
  const whole = outcome.failedFiles - partly;
  const of = `of ${outcome.files} file${outcome.files === 1 ? '' : 's'}`;
  const inPart = `${partly === 1 ? 'was' : 'were'} read in part (broken lines skipped)`;
  if (outcome.files > 1)
    process.stderr.write(
      `faultline: ${
        whole === 0
          ? `${partly} ${of} ${inPart}`
          : `${whole} ${of} could not be read${partly > 0 ? `, ${partly} ${inPart}` : ''}`
      }\n`,
    );
  return 2;
}
