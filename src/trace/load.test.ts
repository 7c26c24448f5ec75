/**
 * Loading JSON Lines with broken lines: the batch loader skips each broken line with an error naming
 * it and reads the rest (runs on other lines, or a run without one event), while the one-file
 * functions keep failing on the first broken line; importers' positions name the file's lines.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES } from '../../test/paths.js';
import { TraceFormatError } from '../errors.js';
import { importTraceBytes, loadBatch, loadTraces, readTracesFromBytes } from './load.js';

const BROKEN = join(FIXTURES, 'broken-lines');
const RUNS = join(BROKEN, 'runs-one-broken-line.jsonl');
const EVENTS = join(BROKEN, 'magentic-one-broken-event.jsonl');
const bytes = (text: string) => new TextEncoder().encode(text);

describe('JSON Lines with broken lines', () => {
  it('reads the ten runs around a broken line, and names the line it skips', async () => {
    const results = [];
    for await (const result of loadBatch([RUNS])) results.push(result);
    const [result] = results;
    assert.ok(result?.ok);
    // Runs are numbered by their line, so that the broken line renumbers none.
    assert.deepEqual(
      result.traces.map((trace) => trace.id),
      [1, 2, 3, 4, 5, 7, 8, 9, 10, 11].map((line) => `runs-one-broken-line-${line}`),
    );
    assert.deepEqual(
      result.skipped.map((error) => error.message),
      [
        `${RUNS} at line 6: the JSON ends too early (is the file truncated?); the line is skipped, and the file's other runs are read`,
      ],
    );
  });

  it("reads a run's other events around a broken event line, and says the run lacks it", async () => {
    for await (const result of loadBatch([EVENTS])) {
      assert.ok(result.ok);
      assert.equal(result.traces.length, 1);
      assert.equal(result.traces[0]!.format, 'magentic-one');
      assert.match(
        result.skipped[0]!.message,
        /magentic-one-broken-event\.jsonl at line 3: the JSON ends too early \(is the file truncated\?\); the line is skipped, and the run is read without it$/,
      );
    }
  });

  it('fails one file, or an upload, on its first broken line as before', async () => {
    await assert.rejects(loadTraces(RUNS), /runs-one-broken-line\.jsonl at line 6: the JSON ends/);
    const text = '{"role": "user", "name": "u", "content": "Hi"}\n{"role": \n';
    await assert.rejects(
      importTraceBytes(bytes(text), 'chat.jsonl'),
      /^TraceFormatError: chat\.jsonl at line 2: /,
    );
    const read = await readTracesFromBytes(bytes(text), 'chat.jsonl');
    assert.equal(read.traces[0]!.steps.length, 1);
    assert.equal(read.skipped.length, 1);
  });

  it('fails a file none of whose lines can be read with its first broken line', async () => {
    await assert.rejects(
      readTracesFromBytes(bytes('{"a": \n{"b" 1}\n'), 'bad.jsonl'),
      (error: unknown) => {
        assert.ok(error instanceof TraceFormatError);
        assert.equal(
          error.message,
          'bad.jsonl at line 1: the JSON ends too early (is the file truncated?)',
        );
        return true;
      },
    );
  });

  it("names the file's line in an importer's error past blank and broken lines", async () => {
    const text = [
      '{"role": "user", "name": "u", "content": "Hi"}',
      '',
      '{"role": "assistant", "name": "A", "content": ',
      '{"role": "assistant", "name": 5, "content": "x"}',
    ].join('\n');
    await assert.rejects(
      readTracesFromBytes(bytes(text), 'chat.jsonl'),
      /^TraceFormatError: chat\.jsonl \(messages\) at line 4\.name: expected string, found number$/,
    );
  });
});
