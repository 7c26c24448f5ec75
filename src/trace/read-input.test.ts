import assert from 'node:assert/strict';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TraceFormatError } from '../errors.js';
import { rawInputFromText, readRawInput } from './read-input.js';

describe('reading trace files', () => {
  it('drops a byte-order mark', () => {
    const input = rawInputFromText('\uFEFF{"history": []}', 'bom.json');
    assert.deepEqual(input, { kind: 'json', value: { history: [] } });
  });

  it('names line and column of a syntax error', () => {
    assert.throws(
      () => rawInputFromText('{\n  "a": 1,\n  "b": }', 'bad.json'),
      (error: unknown) => {
        assert.ok(error instanceof TraceFormatError);
        assert.match(error.message, /^bad\.json at line 3, column \d+: invalid JSON/);
        return true;
      },
    );
  });

  it('says a truncated file is truncated', () => {
    assert.throws(
      () => rawInputFromText('{"history": [', 'cut.json'),
      /cut\.json: the JSON ends too early/,
    );
  });

  it('reads JSON Lines by extension and by shape', () => {
    assert.deepEqual(rawInputFromText('{"a": 1}\n{"a": 2}\n', 'x.jsonl'), {
      kind: 'jsonl',
      records: [{ a: 1 }, { a: 2 }],
    });
    assert.deepEqual(rawInputFromText('{"a": 1}\n{"a": 2}\n', 'x.json'), {
      kind: 'jsonl',
      records: [{ a: 1 }, { a: 2 }],
    });
  });

  it('names the bad line of JSON Lines', () => {
    assert.throws(() => rawInputFromText('{"a": 1}\n{"a": \n', 'x.jsonl'), /x\.jsonl at line 2:/);
  });

  it('refuses an empty file', () => {
    assert.throws(() => rawInputFromText('  \n', 'empty.json'), /empty\.json: the file is empty/);
  });

  it('refuses a 2 GB file before reading it', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'faultline-'));
    const file = join(folder, 'huge.json');
    try {
      const handle = await open(file, 'w');
      await handle.truncate(2 * 1024 ** 3); // sparse: no disk space used
      await handle.close();
      await assert.rejects(
        readRawInput(file),
        /huge\.json: the file is 2\.0 GB; faultline reads trace files up to 512 MB/,
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('reports a missing file and a folder plainly', async () => {
    await assert.rejects(readRawInput('/nonexistent/trace.json'), /trace\.json: no such file/);
    const folder = await mkdtemp(join(tmpdir(), 'faultline-'));
    try {
      await writeFile(join(folder, 'a.json'), '{}');
      await assert.rejects(readRawInput(folder), /is a folder/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
