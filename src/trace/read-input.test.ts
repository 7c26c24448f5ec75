import assert from 'node:assert/strict';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { TraceFormatError } from '../errors.js';
import { expandPaths, loadTraces } from './load.js';
import { rawInputFromBytes, rawInputFromText, readRawInput } from './read-input.js';

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
    const lines = {
      kind: 'jsonl',
      records: [{ a: 1 }, { a: 2 }],
      lineNumbers: [1, 2],
      brokenLines: [],
    };
    assert.deepEqual(rawInputFromText('{"a": 1}\n{"a": 2}\n', 'x.jsonl'), lines);
    assert.deepEqual(rawInputFromText('{"a": 1}\r\n{"a": 2}\r\n', 'x.json'), lines);
  });

  it('keeps the lines around a broken line of JSON Lines, naming it and where each record stands', () => {
    const input = rawInputFromText('{"a": 1}\n\n{"a": \n{"a": 3}\n{"a" 4}\n', 'x.jsonl');
    assert.ok(input.kind === 'jsonl');
    assert.deepEqual(input.records, [{ a: 1 }, { a: 3 }]);
    assert.deepEqual(input.lineNumbers, [1, 4]);
    assert.deepEqual(
      input.brokenLines.map((error) => error.message),
      [
        'x.jsonl at line 3: the JSON ends too early (is the file truncated?)',
        'x.jsonl at line 5, column 6: invalid JSON: colon expected',
      ],
    );
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

  it('reads gzip-compressed traces, JSON Lines told apart by the name under .gz', () => {
    const gzipped = (text: string) => new Uint8Array(gzipSync(Buffer.from(text)));
    assert.deepEqual(rawInputFromBytes(gzipped('{"history": []}'), 'run.json.gz'), {
      kind: 'json',
      value: { history: [] },
    });
    assert.deepEqual(rawInputFromBytes(gzipped('{"a": 1}'), 'log.jsonl.gz'), {
      kind: 'jsonl',
      records: [{ a: 1 }],
      lineNumbers: [1],
      brokenLines: [],
    });
    assert.throws(
      () => rawInputFromBytes(gzipped('{"a": '), 'cut.json.gz'),
      /cut\.json\.gz: the JSON ends too early/,
    );
  });

  it('reads gzip inside gzip, and names a file compressed more times than is sensible', () => {
    let bytes: Uint8Array = Buffer.from('{"history": []}');
    for (let layer = 1; layer <= 4; layer += 1) {
      bytes = new Uint8Array(gzipSync(bytes));
      if (layer === 2)
        assert.deepEqual(rawInputFromBytes(bytes, 'twice.json.gz'), {
          kind: 'json',
          value: { history: [] },
        });
    }
    assert.throws(
      () => rawInputFromBytes(bytes, 'deep.json.gz'),
      /^TraceFormatError: deep\.json\.gz: it is gzip-compressed more than 3 times over/,
    );
  });

  it('reads UTF-16 and UTF-32 text by its byte-order mark, either byte order', () => {
    const text = '\uFEFF{"history": [], "question": "café ☕ 𝄞"}';
    const utf16le = Buffer.from(text, 'utf16le');
    const utf16be = Buffer.from(utf16le).swap16();
    const utf32le = Buffer.alloc(4 * [...text].length);
    [...text].forEach((char, index) => utf32le.writeUInt32LE(char.codePointAt(0)!, index * 4));
    const utf32be = Buffer.from(utf32le).swap32();
    for (const [name, bytes] of Object.entries({ utf16le, utf16be, utf32le, utf32be }))
      assert.deepEqual(
        rawInputFromBytes(new Uint8Array(bytes), `${name}.json`),
        { kind: 'json', value: { history: [], question: 'café ☕ 𝄞' } },
        name,
      );
  });

  it('says a truncated or damaged gzip file is so, naming the file', () => {
    const bytes = gzipSync(Buffer.from(JSON.stringify({ history: [], pad: 'x'.repeat(5000) })));
    assert.throws(
      () => rawInputFromBytes(new Uint8Array(bytes.subarray(0, bytes.length >> 1)), 'half.json.gz'),
      /^TraceFormatError: half\.json\.gz: the gzip data ends too early \(is the file truncated\?\)$/,
    );
    const damaged = new Uint8Array(bytes);
    damaged.fill(0xff, 12, 40);
    assert.throws(
      () => rawInputFromBytes(damaged, 'bad.json.gz'),
      /^TraceFormatError: bad\.json\.gz: the gzip data is damaged \(.+\)$/,
    );
  });

  it('finds .gz traces in a folder and names them without the extensions', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'faultline-'));
    try {
      const run = { history: [{ role: 'assistant', name: 'A', content: 'hi' }], question: 'q' };
      await writeFile(join(folder, 'run-7.json.gz'), gzipSync(JSON.stringify(run)));
      await writeFile(join(folder, 'notes.txt.gz'), gzipSync('not a trace'));
      const files = await expandPaths([folder]);
      assert.deepEqual(files, [join(folder, 'run-7.json.gz')]);
      const [trace] = await loadTraces(files[0]!);
      assert.equal(trace!.id, 'run-7');
      assert.equal(trace!.steps[0]!.agent, 'A');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
