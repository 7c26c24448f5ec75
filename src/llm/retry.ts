/**
 * Retries of model calls, ours rather than the SDK's so that each attempt has its own timeout
 * (`--timeout` bounds one call, not the whole sequence) and a provider's Retry-After is honoured
 * as asked, up to a limit that is said rather than silently applied. HTTP 429 and 5xx are retried
 * (the SDK's judgement of what is retryable), with exponential back-off from 2 s when the provider
 * names no wait.
 */
import { APICallError, RetryError } from 'ai';

/** The longest wait a provider may ask for before faultline gives up instead. */
export const LONGEST_WAIT_MS = 10 * 60_000;
const INITIAL_DELAY_MS = 2_000;

/** The wait a provider asks for (`retry-after-ms`, `retry-after` in seconds or as a date). */
export function requestedWaitMs(error: APICallError): number | undefined {
  const headers = error.responseHeaders ?? {};
  const milliseconds = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const retryAfter = headers['retry-after'];
  if (!retryAfter) return undefined;
  const seconds = Number.parseFloat(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

const sleep = (milliseconds: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/**
 * Runs `call` with a fresh timeout signal per attempt, retrying retryable provider errors up to
 * `retries` times. After the last attempt the SDK's RetryError carries every error; a wait longer
 * than LONGEST_WAIT_MS ends the sequence at once, with the wait in the message.
 */
export async function withRetries<Result>(
  call: (signal: AbortSignal) => Promise<Result>,
  options: { retries: number; timeoutMs: number },
): Promise<Result> {
  const errors: unknown[] = [];
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await call(AbortSignal.timeout(options.timeoutMs));
    } catch (error) {
      if (!APICallError.isInstance(error) || !error.isRetryable) throw error;
      errors.push(error);
      if (attempt >= options.retries)
        throw new RetryError({
          message: `gave up after ${errors.length} attempts`,
          reason: 'maxRetriesExceeded',
          errors,
        });
      const wait = requestedWaitMs(error) ?? INITIAL_DELAY_MS * 2 ** attempt;
      if (wait > LONGEST_WAIT_MS)
        throw new RetryError({
          message: `the provider asks to wait ${Math.round(wait / 1000)} s, longer than faultline waits (${LONGEST_WAIT_MS / 60_000} min); try again later`,
          reason: 'errorNotRetryable',
          errors,
        });
      await sleep(wait);
    }
  }
}
