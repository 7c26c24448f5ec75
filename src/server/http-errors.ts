/**
 * Maps errors to HTTP answers: `{ "error": message }` with the right status, the cause chain
 * logged, and nothing that could leak a secret. Routes refuse requests with hono's HTTPException.
 * The same mapping serves errors thrown in a job worker, which travel back as plain data.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { HTTPException } from 'hono/http-exception';
import { describeError, ProviderError, TraceFormatError, UserError } from '../errors.js';
import { StoreUnavailableError } from '../store/database.js';

/** An error as an HTTP answer: status, message for the client, and lines for the log (if any). */
export interface ErrorAnswer {
  status: ContentfulStatusCode;
  message: string;
  /** The cause chain, one line each; empty for refusals that need no log line. */
  logLines: string[];
}

/** The error and its causes, one line each. */
function causeLines(error: unknown): string[] {
  const lines: string[] = [];
  let current: unknown = error;
  let prefix = 'error';
  while (current) {
    lines.push(`${prefix}: ${describeError(current)}`);
    current = current instanceof Error ? current.cause : undefined;
    prefix = 'caused by';
  }
  return lines;
}

/** How any thrown value is answered. */
export function errorAnswer(error: unknown): ErrorAnswer {
  if (error instanceof HTTPException)
    return {
      status: error.status,
      message: error.message || 'request refused',
      logLines: [],
    };
  if (error instanceof TraceFormatError || error instanceof UserError)
    return { status: 400, message: error.message, logLines: [] };
  // The database restarting or gone: nothing was stored for this request; it can be sent again.
  if (error instanceof StoreUnavailableError)
    return {
      status: 503,
      message: 'the database cannot be reached; try again in a moment',
      logLines: causeLines(error).slice(0, 1),
    };
  if (error instanceof ProviderError)
    return { status: 502, message: error.message, logLines: causeLines(error) };
  return {
    status: 500,
    message: 'internal error; see the server log (faultline logs)',
    logLines: causeLines(error),
  };
}

/** The JSON error answer for any thrown value. */
export function errorResponse(
  context: Context,
  error: unknown,
  log: (line: string) => void,
): Response {
  // A refusal that carries its own answer (503 with Retry-After) is sent as it is.
  if (error instanceof HTTPException && error.res) return error.getResponse();
  const answer = errorAnswer(error);
  for (const line of answer.logLines) log(line);
  // Every 503 (a job worker's too, which arrives as an HTTPException) says when to try again.
  if (answer.status === 503) context.header('retry-after', '1');
  return context.json({ error: answer.message }, answer.status);
}
