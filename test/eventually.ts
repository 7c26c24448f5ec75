/** Waiting in tests for what a server does in the background. */

/** Resolves after `milliseconds`. */
export const sleep = (milliseconds: number) =>
  new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Polls `read` every `everyMs` until it gives a value, for at most `seconds`. */
export async function eventually<Value>(
  read: () => Promise<Value | undefined>,
  seconds = 15,
  everyMs = 50,
): Promise<Value> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${seconds} s`);
    await sleep(everyMs);
  }
}
