/**
 * Reads a trace file into one of three raw shapes (a JSON document, JSON Lines records, or a
 * SQLite database) before any format is chosen. Trace files are untrusted: size is checked before
 * reading (and again after a gzip file is decompressed), text is decoded by its byte-order mark
 * (UTF-8, UTF-16 and UTF-32; text-encoding.ts), parse
 * failures name the line and column, values nested deeper than any real trace are refused where
 * they are (json-depth.ts), and a broken JSON Lines line is kept as an error beside the others
 * (reading JSON text and JSON Lines, and saying why text is not JSON, is json-text.ts).
 */
import { readFileSync } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { TraceFormatError } from '../errors.js';
import { refuseTooDeep } from './json-depth.js';
import {
  describeJsonError,
  looksLikeJsonLines,
  parseJsonLines,
  type JsonLines,
} from './json-text.js';
import { decodeMarkedText, encodingOfMark } from './text-encoding.js';

/** Largest trace file read, in bytes. V8 cannot hold a much larger string in one piece. */
export const MAX_TRACE_BYTES = 512 * 1024 * 1024;

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** The first two bytes of every gzip stream. */
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/**
 * A trace file's content before a format is chosen. JSON Lines keep the line each record stands on
 * (blank lines are skipped) and the lines that could not be read, each an error naming its line:
 * one broken line does not cost the others (import-input.ts decides what the file gives without it).
 */
export type RawInput =
  | { kind: 'json'; value: unknown }
  | ({ kind: 'jsonl' } & JsonLines)
  | { kind: 'sqlite'; bytes: Uint8Array };

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  return `${(bytes / 1024 ** 2).toFixed(0)} MB`;
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

/** Most gzip layers read (an exporter's compressed batch, compressed again by an archiver). */
const MAX_GZIP_LAYERS = 3;

/** The bytes with every gzip layer taken off, each layer bounded like one. */
function gunzipLayers(bytes: Uint8Array, file: string): Uint8Array {
  let plain = bytes;
  for (let layers = 0; isGzip(plain); layers += 1) {
    if (layers === MAX_GZIP_LAYERS)
      throw new TraceFormatError(
        file,
        `it is gzip-compressed more than ${MAX_GZIP_LAYERS} times over; decompress it (gunzip) and give the trace inside`,
      );
    plain = gunzipTrace(plain, file);
  }
  return plain;
}

/**
 * Decodes bytes, recognising SQLite databases by their header; gzip-compressed bytes are
 * decompressed first (a few layers deep), and UTF-16 or UTF-32 text is told by its byte-order mark.
 * Binary files are refused.
 */
function decode(bytes: Uint8Array, file: string): Decoded {
  const gzip = isGzip(bytes);
  const plain = gzip ? gunzipLayers(bytes, file) : bytes;
  const name = gzip ? file.replace(/\.gz$/i, '') : file;
  if (isSqlite(plain)) return { kind: 'sqlite', bytes: plain };
  const marked = encodingOfMark(plain);
  if (marked) return { kind: 'text', text: decodeMarkedText(plain, marked), name };
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
  if (isGzip(head) || isSqlite(head) || encodingOfMark(head) || isBinary(head))
    return decode(await readFile(file), file);
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
