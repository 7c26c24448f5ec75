/**
 * How the command line reports failures: one line per problem on stderr, a stack trace only with
 * `--debug`, and exit codes that scripts can rely on.
 */
import { describeError, FaultlineError, ProviderError } from '../errors.js';
import { escapeControls } from './terminal-text.js';

/** Exit codes of the `faultline` command. */
export const EXIT = {
  ok: 0,
  /** A bug or an unexpected failure. */
  internal: 1,
  /** Bad input or usage: a trace that cannot be read, an unknown option value. */
  badInput: 2,
  /** A model provider failed (after retries) for at least one trace. */
  provider: 3,
} as const;

let debug = false;

/** Turns on stack traces for every later report. */
export function setDebug(enabled: boolean): void {
  debug = enabled;
}

/** Prints one error line (and the stack with --debug). */
export function reportError(error: unknown): void {
  // One line per problem, whatever the message holds: each run of whitespace with a line break in
  // it becomes a space (run by run; `\s*\n\s*` backtracks quadratically on long runs of spaces).
  const line = describeError(error).replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run));
  // A message may quote a trace or a file name: shown, never obeyed (terminal-text.ts).
  process.stderr.write(`faultline: ${escapeControls(line)}\n`);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  if (debug && error instanceof Error && error.cause)
    process.stderr.write(`caused by: ${describeError(error.cause)}\n`);
}

/** The exit code for an error that ended a command. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof ProviderError) return EXIT.provider;
  return error instanceof FaultlineError ? EXIT.badInput : EXIT.internal;
}
