/**
 * Maps errors to HTTP answers: `{ "error": message }` with the right status, the cause chain
 * logged, and nothing that could leak a secret. Routes refuse requests with hono's HTTPException.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describeError, ProviderError, TraceFormatError, UserError } from '../errors.js';

/** Logs an error with its causes on one line each. */
export function logError(log: (line: string) => void, error: unknown): void {
  let current: unknown = error;
  let prefix = 'error';
  while (current) {
    log(`${prefix}: ${describeError(current)}`);
    current = current instanceof Error ? current.cause : undefined;
    prefix = 'caused by';
  }
}

/** The JSON error answer for any thrown value. */
export function errorResponse(
  context: Context,
  error: unknown,
  log: (line: string) => void,
): Response {
  if (error instanceof HTTPException)
    return context.json({ error: error.message || 'request refused' }, error.status);
  if (error instanceof TraceFormatError || error instanceof UserError)
    return context.json({ error: error.message }, 400);
  if (error instanceof ProviderError) {
    logError(log, error);
    return context.json({ error: error.message }, 502);
  }
  logError(log, error);
  return context.json({ error: 'internal error; see the server log (faultline logs)' }, 500);
}
