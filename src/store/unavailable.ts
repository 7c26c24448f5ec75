/**
 * A database that cannot be reached (not started, restarting, the network gone) as one typed
 * error: the server answers it with 503 and Retry-After, the CLI prints its one line. Anything
 * else a statement fails with (a constraint, a syntax error) is left as it is.
 */
import { FaultlineError } from '../errors.js';

/** The store's database cannot be reached now; trying again later may succeed. */
export class StoreUnavailableError extends FaultlineError {}

/** Socket errors of a connection that is refused, reset or gone. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL's own: 08xxx connection exceptions, 57P01 to 57P03 (the server shutting down or
 * starting up).
 */
const SERVER_CODE = /^(08...|57P0[123])$/;

/** node-postgres's messages for a connection that ended or never came. */
const CLIENT_MESSAGE =
  /Connection terminated|Connection ended|timeout exceeded when trying to connect|not queryable|Client was closed/i;

/** Whether an error says the database could not be reached, rather than refusing a statement. */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODE.test(code))) return true;
  if (error instanceof AggregateError && error.errors.some(isConnectionFailure)) return true;
  return CLIENT_MESSAGE.test(error.message);
}

/** The error as a StoreUnavailableError when it is a connection failure; else as it is. */
export function unavailableOr(error: unknown, location: string): unknown {
  if (error instanceof StoreUnavailableError || !isConnectionFailure(error)) return error;
  const reason = error instanceof Error && error.message ? error.message : String(error);
  return new StoreUnavailableError(
    `the database at ${location} cannot be reached (${reason.split('\n')[0]}): check that it runs and that FAULTLINE_DATABASE_URL or --database-url names it; try again in a moment`,
    { cause: error },
  );
}
