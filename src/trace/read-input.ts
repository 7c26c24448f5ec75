/**
 * Reads a trace file into one of three raw shapes (a JSON document, JSON Lines records, or a
 * SQLite database) before any format is chosen. Trace files are untrusted: size is checked before
 * reading (and again after a gzip file is decompressed), a byte-order mark is dropped, parse
 * failures name the line and column, values nested deeper than any real trace are refused where
 * they are (json-depth.ts), and a broken JSON Lines line is kept as an error beside the others.
 */
import { readFileSync } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import type * as Jsonc from 'jsonc-parser';
import { TraceFormatError } from '../errors.js';
import { MAX_JSON_DEPTH, refuseTooDeep, TOO_DEEP } from './json-depth.js';

/** jsonc-parser, loaded on the first parse failure: reading valid files never needs it. */
let jsonc: typeof Jsonc | undefined;
const jsoncParser = () =>
  (jsonc ??= createRequire(import.meta.url)('jsonc-parser') as typeof Jsonc);

/** Largest trace file read, in bytes. V8 cannot hold a much larger string in one piece. */
export const MAX_TRACE_BYTES = 512 * 1024 * 1024;

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** The first two bytes of every gzip stream. */
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/**
 * A trace file's content before a format is chosen. JSON Lines keep the line each record stands on
 * (blank lines are skipped) and the lines that could not be read, each an error naming its line:
 * one broken line does not cost the others (load.ts decides what the file gives without it).
 */
export type RawInput =
  | { kind: 'json'; value: unknown }
  | { kind: 'jsonl'; records: unknown[]; lineNumbers: number[]; brokenLines: TraceFormatError[] }
  | { kind: 'sqlite'; bytes: Uint8Array };

/** What JSON Lines text gives: its records, the line (from 1) of each, and the broken lines. */
export type JsonLines = Omit<Extract<RawInput, { kind: 'jsonl' }>, 'kind'>;

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  return `${(bytes / 1024 ** 2).toFixed(0)} MB`;
}

/** Line and column (1-based) of a character offset. */
function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index += 1) {
    if (text.charCodeAt(index) === 10) {
      line += 1;
      lineStart = index + 1;
    }
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

/** jsonc-parser's tokens that open and close a nesting level (its SyntaxKind, a const enum). */
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

/**
 * Where text nests arrays and objects deeper than MAX_JSON_DEPTH, as a character offset; -1 when
 * it does not. A scan of its tokens (no recursion), run before jsonc-parser's recursive parser
 * reads text that JSON.parse refused.
 */
function tooDeepOffset(text: string): number {
  const scanner = jsoncParser().createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== EOF; token = scanner.scan()) {
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) return scanner.getTokenOffset();
    } else if (token === CLOSE_BRACE || token === CLOSE_BRACKET) depth = Math.max(0, depth - 1);
  }
  return -1;
}

/** Stops jsonc-parser's visit at the first error. */
class FirstError {
  constructor(
    readonly error: Jsonc.ParseErrorCode,
    readonly offset: number,
  ) {}
}

/**
 * Describes why text is not JSON, with the line and column of the first problem. V8's own message
 * often lacks a position, so the failing text is re-read by jsonc-parser (strict mode), which
 * reports an offset for every error; its visitor builds no values and stops at the first error.
 * Text nested too deep for its recursive parser is refused for its depth. Only runs on failure:
 * the fast path is JSON.parse.
 */
function describeJsonError(text: string): { problem: string; position?: string } {
  const { visit, printParseErrorCode } = jsoncParser();
  const deep = tooDeepOffset(text);
  if (deep >= 0) return { problem: TOO_DEEP, position: lineAndColumn(text, deep) };
  let first: FirstError | undefined;
  try {
    visit(
      text,
      {
        onError: (error, offset) => {
          throw new FirstError(error, offset);
        },
      },
      { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
    );
  } catch (error) {
    if (!(error instanceof FirstError)) throw error;
    first = error;
  }
  if (!first) return { problem: 'invalid JSON' };
  const atEnd =
    first.offset >= text.trimEnd().length ||
    printParseErrorCode(first.error) === 'UnexpectedEndOfString';
  if (atEnd) return { problem: 'the JSON ends too early (is the file truncated?)' };
  const code = printParseErrorCode(first.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return { problem: `invalid JSON: ${code}`, position: lineAndColumn(text, first.offset) };
}

/**
 * Calls `visit` with each line of `text` (split at `\n`, trimmed, so a `\r` before it goes too)
 * and its number from 1, without building a list of the lines.
 */
function forEachLine(text: string, visit: (line: string, number: number) => void): void {
  let number = 1;
  for (let start = 0; start <= text.length; number += 1) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    visit(text.slice(start, stop).trim(), number);
    start = stop + 1;
  }
}

/**
 * Parses JSON Lines: one JSON value per non-empty line. A line that is not JSON, or nests deeper
 * than a trace may, is a broken line (an error naming it), and the others are read.
 */
export function parseJsonLines(text: string, file: string): JsonLines {
  const read: JsonLines = { records: [], lineNumbers: [], brokenLines: [] };
  forEachLine(text, (line, number) => {
    if (line.length === 0) return;
    const position = `line ${number}`;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      const { problem, position: inLine } = describeJsonError(line);
      read.brokenLines.push(
        new TraceFormatError(file, problem, {
          // Within its own line, the column is the useful half of a position.
          position: inLine ? `${position}, ${inLine.replace(/^line 1, /, '')}` : position,
          cause: error,
        }),
      );
      return;
    }
    try {
      refuseTooDeep(record, { file, prefix: position });
    } catch (error) {
      if (!(error instanceof TraceFormatError)) throw error;
      read.brokenLines.push(error);
      return;
    }
    read.records.push(record);
    read.lineNumbers.push(number);
  });
  return read;
}

/** Looks like JSON Lines: at least two non-empty lines that each start a JSON object. */
function looksLikeJsonLines(text: string): boolean {
  let lines = 0;
  let objects = true;
  forEachLine(text, (line) => {
    if (line.length === 0) return;
    lines += 1;
    objects &&= line.startsWith('{');
  });
  return lines >= 2 && objects;
}

/**
 * SQL statements or a SQL comment where a trace should start (a dump of a log database); `---`
 * (YAML, Markdown) is not one.
 */
const SQL_TEXT = /^\s*(--(?!-)|create\s+table\b|insert\s+into\b|pragma\b|begin\s+transaction\b)/i;

/**
 * Decodes text already in memory into a RawInput. `file` is used in messages; `name` (the file's,
 * less a `.gz` it was decompressed from) marks JSON Lines by its extension.
 */
export function rawInputFromText(text: string, file: string, name = file): RawInput {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim().length === 0) throw new TraceFormatError(file, 'the file is empty');
  if (/\.jsonl$|\.ndjson$/i.test(name)) return { kind: 'jsonl', ...parseJsonLines(body, file) };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    if (looksLikeJsonLines(body)) return { kind: 'jsonl', ...parseJsonLines(body, file) };
    if (SQL_TEXT.test(body))
      throw new TraceFormatError(
        file,
        `this is SQL text, not a trace; faultline reads the SQLite database itself (AG2 writes logs.db): give that file, or load this text into one first (sqlite3 logs.db < ${file})`,
        { cause: error },
      );
    const { problem, position } = describeJsonError(body);
    throw new TraceFormatError(file, problem, { position, cause: error });
  }
  refuseTooDeep(value, { file });
  return { kind: 'json', value };
}

/**
 * The bytes of a gzip-compressed trace (`run.json.gz`, an exporter's compressed batch),
 * decompressed up to the largest trace faultline reads.
 */
function gunzipTrace(bytes: Uint8Array, file: string): Uint8Array {
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_TRACE_BYTES });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === 'ERR_BUFFER_TOO_LARGE'
        ? `it decompresses to more than ${formatBytes(MAX_TRACE_BYTES)}, the most faultline reads (split the run into smaller traces)`
        : code === 'Z_BUF_ERROR'
          ? 'the gzip data ends too early (is the file truncated?)'
          : `the gzip data is damaged (${(error as Error).message})`;
    throw new TraceFormatError(file, problem, { cause: error });
  }
}

/** True for gzip-compressed bytes. */
const isGzip = (bytes: Uint8Array) => bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];

/** True for the bytes of a SQLite database. */
const isSqlite = (bytes: Uint8Array) =>
  Buffer.from(bytes.subarray(0, 16)).toString('latin1') === SQLITE_MAGIC;

/** How many bytes at the head of a file tell a binary file: one with a NUL among them. */
const BINARY_HEAD = 4096;

/** True for the bytes of a binary file (neither text nor SQLite). */
const isBinary = (bytes: Uint8Array) => bytes.subarray(0, BINARY_HEAD).includes(0);

/**
 * A trace's bytes decoded as far as text: a SQLite database's bytes, or the text with the name that
 * tells JSON Lines apart (the file's, less a `.gz` it was decompressed from).
 */
type Decoded = { kind: 'sqlite'; bytes: Uint8Array } | { kind: 'text'; text: string; name: string };

/**
 * Decodes bytes, recognising SQLite databases by their header; gzip-compressed bytes are
 * decompressed first. Binary files are refused.
 */
function decode(bytes: Uint8Array, file: string): Decoded {
  const gzip = isGzip(bytes);
  const plain = gzip ? gunzipTrace(bytes, file) : bytes;
  const name = gzip ? file.replace(/\.gz$/i, '') : file;
  if (isSqlite(plain)) return { kind: 'sqlite', bytes: plain };
  if (isBinary(plain))
    throw new TraceFormatError(
      file,
      'this is a binary file, not a JSON, JSON Lines or SQLite trace',
    );
  const text = Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).toString('utf8');
  return { kind: 'text', text, name };
}

/** The RawInput of decoded bytes. */
function rawInputFromDecoded(decoded: Decoded, file: string): RawInput {
  return decoded.kind === 'sqlite' ? decoded : rawInputFromText(decoded.text, file, decoded.name);
}

/**
 * Decodes bytes into a RawInput, recognising SQLite databases by their header; gzip-compressed
 * bytes are decompressed first (the file's name, less `.gz`, tells JSON Lines apart as usual).
 */
export function rawInputFromBytes(bytes: Uint8Array, file: string): RawInput {
  return rawInputFromDecoded(decode(bytes, file), file);
}

/** The path that means standard input: `cat run.json | faultline attribute -`. */
export const STDIN_PATH = '-';
/** How standard input is named in messages and results. */
export const STDIN_NAME = 'stdin';

/** Everything piped in on standard input, refusing more than a trace file may hold. */
async function readStdin(): Promise<Uint8Array> {
  if (process.stdin.isTTY)
    throw new TraceFormatError(
      STDIN_NAME,
      'nothing is piped in: give a trace file, or pipe one in (cat run.json | faultline attribute -)',
    );
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_TRACE_BYTES)
      throw new TraceFormatError(
        STDIN_NAME,
        `more than ${formatBytes(MAX_TRACE_BYTES)} was piped in; faultline reads traces up to ${formatBytes(MAX_TRACE_BYTES)} (split the run into smaller traces)`,
      );
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** Refuses a folder, a missing or unreadable file, and one too large to parse safely. */
async function checkTraceFile(file: string): Promise<void> {
  let size: number;
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new TraceFormatError(file, 'is a folder; give a trace file');
    size = info.size;
  } catch (error) {
    if (error instanceof TraceFormatError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : `cannot read (${code ?? String(error)})`;
    throw new TraceFormatError(file, problem, { cause: error });
  }
  if (size > MAX_TRACE_BYTES) {
    throw new TraceFormatError(
      file,
      `the file is ${formatBytes(size)}; faultline reads trace files up to ${formatBytes(MAX_TRACE_BYTES)} (split the run into smaller traces)`,
    );
  }
}

/** The first bytes of a file: enough to tell gzip, SQLite and binary files from text. */
async function headOf(file: string): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const head = new Uint8Array(BINARY_HEAD);
    const { bytesRead } = await handle.read(head, 0, BINARY_HEAD, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * A trace file (`-`: standard input, named `stdin`) decoded as far as text. A text file is read as
 * text, in one synchronous call that decodes as it reads: its bytes are never held as a buffer
 * beside the text, which for a 200 MB trace kept 200 MB more resident while the text was parsed
 * (the garbage collector had marked the buffer live before it was let go). Gzip, SQLite and binary
 * files, told by their first bytes, are read as bytes.
 */
async function readDecoded(file: string): Promise<Decoded> {
  if (file === STDIN_PATH) return decode(await readStdin(), STDIN_NAME);
  await checkTraceFile(file);
  const head = await headOf(file);
  if (isGzip(head) || isSqlite(head) || isBinary(head)) return decode(await readFile(file), file);
  return { kind: 'text', text: readText(file), name: file };
}

/**
 * A text file's text, read and decoded in one synchronous call that lets no reference to its bytes
 * out (not even through a promise), so that they can be collected while the text is parsed.
 */
function readText(file: string): string {
  return readFileSync(file).toString('utf8');
}

/**
 * Reads a trace file from disk, refusing files too large to parse safely; `-` reads standard
 * input (named `stdin` in messages).
 */
export async function readRawInput(file: string): Promise<RawInput> {
  return rawInputFromDecoded(await readDecoded(file), file === STDIN_PATH ? STDIN_NAME : file);
}
