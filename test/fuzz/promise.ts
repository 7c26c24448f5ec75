/**
 * The promise faultline makes about bad input, checked on one hostile file in a batch between two
 * good ones (issue 50): the file is read, or refused with one TraceFormatError that names it; a trace
 * read from it is attributed and shown without an error and without a raw control character
 * reaching the terminal; the good files beside it read exactly as they read alone; and it all
 * finishes within a time and memory bound.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attribute } from '../../src/attribution/attribute.js';
import { renderAttribution } from '../../src/cli/render.js';
import { renderTrace } from '../../src/cli/render-trace.js';
import { FaultlineError, TraceFormatError } from '../../src/errors.js';
import { loadBatch } from '../../src/trace/load.js';
import type { Trace } from '../../src/trace/model.js';

/** Most one hostile file may take, read and attributed (a bound for runaway work, not a timing). */
export const CASE_SECONDS = 60;
/** Most the process may grow by while one hostile file is handled. */
export const CASE_MEMORY_BYTES = 1024 ** 3;

// eslint-disable-next-line no-control-regex -- the characters that must never reach a terminal raw
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** What a file's traces say, apart from the names that follow the file's (id, source). */
export const readAs = (traces: readonly Trace[]) =>
  JSON.stringify(traces.map(({ steps, agents, labels }) => ({ steps, agents, labels })));

/** A good file, and what the batch must read from it. */
export interface Neighbour {
  name: string;
  bytes: Uint8Array;
  /** Its traces as JSON, read alone. */
  expected: string;
}

/** Checks the promise on `hostile`, in a folder between two copies of `neighbour`. */
export async function checkPromise(
  hostile: { name: string; bytes: Uint8Array },
  neighbour: Neighbour,
): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'faultline-fuzz-'));
  const started = performance.now();
  const rssBefore = process.memoryUsage().rss;
  try {
    const hostileFile = join(folder, `b-${hostile.name}`);
    await writeFile(join(folder, `a-${neighbour.name}`), neighbour.bytes);
    await writeFile(hostileFile, hostile.bytes);
    await writeFile(join(folder, `c-${neighbour.name}`), neighbour.bytes);
    let files = 0;
    for await (const result of loadBatch([folder])) {
      files += 1;
      if (result.file !== hostileFile) {
        assert.ok(
          result.ok,
          `the good file beside it was read: ${result.ok ? '' : result.error.message}`,
        );
        assert.equal(readAs(result.traces), neighbour.expected, 'the good file reads as alone');
        continue;
      }
      if (!result.ok) {
        assertNamed(result.error, hostileFile);
        continue;
      }
      for (const error of result.skipped) assertNamed(error, hostileFile);
      for (const trace of result.traces) {
        const verdict = await attribute(trace).catch((error: unknown) => {
          // A FaultlineError is reported on one line, for this file alone (exit 2).
          assert.ok(error instanceof FaultlineError, `attribute threw ${String(error)}`);
          return undefined;
        });
        const shown = [renderTrace(trace, 100)];
        if (verdict) shown.push(renderAttribution(hostileFile, trace, verdict));
        for (const text of shown)
          assert.ok(!RAW_CONTROL.test(text), 'no raw control character is printed');
      }
    }
    assert.equal(files, 3, 'every file of the batch is read');
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  assert.ok(seconds < CASE_SECONDS, `handled in ${seconds.toFixed(1)} s`);
  const grown = process.memoryUsage().rss - rssBefore;
  assert.ok(grown < CASE_MEMORY_BYTES, `grew by ${(grown / 1024 ** 2).toFixed(0)} MB`);
}

/** The error is a TraceFormatError on one line that names the file first. */
function assertNamed(error: unknown, file: string): void {
  assert.ok(error instanceof TraceFormatError, `not a TraceFormatError: ${String(error)}`);
  assert.ok(
    error.message.startsWith(file),
    `the message names the file: ${error.message.slice(0, 200)}`,
  );
}
