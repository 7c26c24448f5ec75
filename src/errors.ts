/**
 * faultline's one error hierarchy. Every error a user can meet is one of these, with a message
 * that says what is wrong and what to do; the CLI prints `error.message` as a single line.
 */

/** Base class of every faultline error. `name` follows the subclass automatically. */
export class FaultlineError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input or configuration that the user can fix: a wrong flag, a missing file, a bad value. */
export class UserError extends FaultlineError {}

/** A trace file that cannot be read as any supported format, or is malformed inside. */
export class TraceFormatError extends FaultlineError {
  /** The file (or other source label) that failed. */
  readonly file: string;
  /** The format being read when it failed, when one was chosen. */
  readonly format: string | undefined;
  /** Where inside the file, e.g. `history[3].content` or `line 12`. */
  readonly position: string | undefined;
  /** The problem alone, without the file and position. */
  readonly problem: string;

  constructor(
    file: string,
    problem: string,
    details: { format?: string; position?: string; cause?: unknown } = {},
  ) {
    const where = details.position ? ` at ${details.position}` : '';
    const how = details.format ? ` (${details.format})` : '';
    super(`${file}${how}${where}: ${problem}`, { cause: details.cause });
    this.file = file;
    this.problem = problem;
    this.format = details.format;
    this.position = details.position;
  }
}

/** A model provider failed: bad key, refused request, exhausted retries. */
export class ProviderError extends FaultlineError {
  /** HTTP status when the provider answered. */
  readonly status: number | undefined;
  /** Whether trying again later may succeed. */
  readonly retryable: boolean;

  constructor(
    message: string,
    details: { status?: number; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: details.cause });
    this.status = details.status;
    this.retryable = details.retryable ?? false;
  }
}

/** A model file that is missing, corrupt or of another version. */
export class ModelFileError extends FaultlineError {}

/** Renders any thrown value as one line for a user, without a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof FaultlineError) return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
