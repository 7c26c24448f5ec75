/**
 * Reads a trace file into one of three raw shapes (a JSON document, JSON Lines records, or a
 * SQLite database) before any format is chosen. Trace files are untrusted: size is checked before
 * reading (and again after a gzip file is decompressed), a byte-order mark is dropped, and parse
 * failures name the line and column.
 */
import { open, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import type * as Jsonc from 'jsonc-parser';
import { TraceFormatError } from '../errors.js';

/** jsonc-parser, loaded on the first parse failure: reading valid files never needs it. */
let jsonc: typeof Jsonc | undefined;
const jsoncParser = () =>
  (jsonc ??= createRequire(import.meta.url)('jsonc-parser') as typeof Jsonc);

/** Largest trace file read, in bytes. V8 cannot hold a much larger string in one piece. */
export const MAX_TRACE_BYTES = 512 * 1024 * 1024;

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** The first two bytes of every gzip stream. */
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/** A trace file's content before a format is chosen. */
export type RawInput =
  | { kind: 'json'; value: unknown }
  | { kind: 'jsonl'; records: unknown[] }
  | { kind: 'sqlite'; bytes: Uint8Array };

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

/**
 * Describes why text is not JSON, with the line and column of the first problem. V8's own message
 * often lacks a position, so the failing text is re-read by jsonc-parser (strict mode), which
 * reports an offset for every error. Only runs on failure: the fast path is JSON.parse.
 */
function describeJsonError(text: string): { problem: string; position?: string } {
  const { parse: parseTolerant, printParseErrorCode } = jsoncParser();
  const errors: Jsonc.ParseError[] = [];
  parseTolerant(text, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
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

/** Parses JSON Lines: one JSON value per non-empty line. */
export function parseJsonLines(text: string, file: string): unknown[] {
  const records: unknown[] = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!.trim();
    if (line.length === 0) continue;
    try {
      records.push(JSON.parse(line));
    } catch (error) {
      const { problem } = describeJsonError(line);
      throw new TraceFormatError(file, problem, { position: `line ${index + 1}`, cause: error });
    }
  }
  return records;
}

/** Looks like JSON Lines: at least two non-empty lines that each start a JSON object. */
function looksLikeJsonLines(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((line) => line.trim().length > 0);
  return lines.length >= 2 && lines.every((line) => line.trimStart().startsWith('{'));
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
  if (/\.jsonl$|\.ndjson$/i.test(name))
    return { kind: 'jsonl', records: parseJsonLines(body, file) };
  try {
    return { kind: 'json', value: JSON.parse(body) };
  } catch (error) {
    if (looksLikeJsonLines(body)) return { kind: 'jsonl', records: parseJsonLines(body, file) };
    if (SQL_TEXT.test(body))
      throw new TraceFormatError(
        file,
        `this is SQL text, not a trace; faultline reads the SQLite database itself (AG2 writes logs.db): give that file, or load this text into one first (sqlite3 logs.db < ${file})`,
        { cause: error },
      );
    const { problem, position } = describeJsonError(body);
    throw new TraceFormatError(file, problem, { position, cause: error });
  }
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

/**
 * Decodes bytes into a RawInput, recognising SQLite databases by their header; gzip-compressed
 * bytes are decompressed first (the file's name, less `.gz`, tells JSON Lines apart as usual).
 */
export function rawInputFromBytes(bytes: Uint8Array, file: string): RawInput {
  if (isGzip(bytes)) return decodeBytes(gunzipTrace(bytes, file), file.replace(/\.gz$/i, ''), file);
  return decodeBytes(bytes, file, file);
}

/** Decodes uncompressed bytes; `name` tells JSON Lines apart, `file` is named in messages. */
function decodeBytes(bytes: Uint8Array, name: string, file: string): RawInput {
  const header = Buffer.from(bytes.subarray(0, 16)).toString('latin1');
  if (header === SQLITE_MAGIC) return { kind: 'sqlite', bytes };
  if (bytes.length > 0 && bytes.indexOf(0) !== -1 && bytes.indexOf(0) < 4096) {
    throw new TraceFormatError(
      file,
      'this is a binary file, not a JSON, JSON Lines or SQLite trace',
    );
  }
  return rawInputFromText(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
    file,
    name,
  );
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

/**
 * Reads a trace file from disk, refusing files too large to parse safely; `-` reads standard
 * input (named `stdin` in messages).
 */
export async function readRawInput(file: string): Promise<RawInput> {
  if (file === STDIN_PATH) return rawInputFromBytes(await readStdin(), STDIN_NAME);
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
  const handle = await open(file, 'r');
  try {
    const bytes = new Uint8Array(size);
    let offset = 0;
    while (offset < size) {
      const { bytesRead } = await handle.read(bytes, offset, size - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return rawInputFromBytes(bytes.subarray(0, offset), file);
  } finally {
    await handle.close();
  }
}
