/**
 * Loading traces from disk: one file, or many files and folders in a batch where one bad file
 * does not stop the rest, nor one broken line of a JSON Lines file the file's other lines. Each
 * batch item is a discriminated result, never a thrown string.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TraceFormatError } from '../errors.js';
import {
  idFromFile,
  isObject,
  recordNumber,
  recordPosition,
  type ImportContext,
  type TraceFormat,
} from './format.js';
import { refuseTooDeep } from './json-depth.js';
import type { Trace } from './model.js';
import {
  STDIN_NAME,
  STDIN_PATH,
  rawInputFromBytes,
  rawInputFromText,
  readRawInput,
  type RawInput,
} from './read-input.js';
import { detectFormat, getFormat, listFormats } from './registry.js';

/** Options shared by the loaders. */
export interface LoadOptions {
  /** Force a format by registry name instead of detecting it. */
  format?: string;
}

/**
 * What a file gives: its traces, and the lines of a JSON Lines file that could not be read and were
 * skipped (empty when the whole file was read), each error naming its line and what the file gives
 * without it.
 */
export interface TracesRead {
  traces: Trace[];
  skipped: TraceFormatError[];
}

/** One file's outcome in a batch: read (maybe with lines skipped), or not read at all. */
export type LoadResult =
  ({ ok: true; file: string } & TracesRead) | { ok: false; file: string; error: TraceFormatError };

/** A trace file's name: JSON, JSON Lines or SQLite, each maybe gzip-compressed. */
const TRACE_FILE = /\.(json|jsonl|ndjson|db|sqlite3?)(\.gz)?$/i;

function unknownShape(input: RawInput, file: string, position?: string): TraceFormatError {
  let shape = '';
  if (input.kind === 'json' && isObject(input.value))
    shape = ` (top-level keys: ${Object.keys(input.value).slice(0, 8).join(', ') || 'none'})`;
  else if (input.kind === 'json' && Array.isArray(input.value))
    shape = ` (a list of ${input.value.length} items)`;
  else if (input.kind === 'jsonl') shape = ` (${input.records.length} JSON lines)`;
  else if (input.kind === 'json')
    shape = input.value === null ? ' (null)' : ` (a bare ${typeof input.value})`;
  const names = listFormats()
    .map((format) => format.name)
    .join(', ');
  return new TraceFormatError(
    file,
    `unrecognised trace format${shape}; faultline reads: ${names} (force one with --format NAME)`,
    position ? { position } : {},
  );
}

/**
 * Turns already-read input into traces with the named or detected format; a JSON Lines file with a
 * broken line fails with that line's error.
 */
export async function importRawInput(
  input: RawInput,
  context: ImportContext,
  options: LoadOptions = {},
): Promise<Trace[]> {
  if (input.kind === 'jsonl' && input.brokenLines.length > 0) throw input.brokenLines[0]!;
  return (await importTraces(input, context, options)).traces;
}

/**
 * Turns already-read input into traces with the named or detected format. The broken lines of a
 * JSON Lines file are skipped, each an error saying what the file gives without it (the runs on the
 * other lines, or the run without that line's event); a file with no line that could be read fails
 * with its first broken line's error.
 */
export async function importTraces(
  input: RawInput,
  context: ImportContext,
  options: LoadOptions = {},
): Promise<TracesRead> {
  if (input.kind !== 'jsonl')
    return { traces: (await tracesAndShape(input, context, options)).traces, skipped: [] };
  const { brokenLines, lineNumbers } = input;
  if (input.records.length === 0 && brokenLines.length > 0) throw brokenLines[0]!;
  let read: { traces: Trace[]; runPerLine: boolean };
  try {
    read = await tracesAndShape(input, context, options);
  } catch (error) {
    throw error instanceof TraceFormatError ? onFileLines(error, lineNumbers) : error;
  }
  const skipped = brokenLines.map(
    (error) =>
      new TraceFormatError(
        error.file,
        `${error.problem}; the line is skipped, ${read.runPerLine ? "and the file's other runs are read" : 'and the run is read without it'}`,
        { ...(error.position ? { position: error.position } : {}), cause: error },
      ),
  );
  return { traces: read.traces, skipped };
}

/**
 * The traces of input, and whether each of its records is a run of its own (a list of traces, or
 * a format that reads one run per record) rather than an event of a run.
 */
async function tracesAndShape(
  input: RawInput,
  context: ImportContext,
  options: LoadOptions,
): Promise<{ traces: Trace[]; runPerLine: boolean }> {
  const format = options.format ? getFormat(options.format) : detectFormat(input);
  if (format)
    return {
      traces: await format.parse(input, context),
      runPerLine: format.recordsAreRuns === true,
    };
  const list = options.format ? undefined : listOfTraces(input);
  if (!list) throw unknownShape(input, context.file);
  // Where an item is: its index in a JSON list, its line in JSON Lines.
  const place = (at: number, inside?: string) =>
    `${recordPosition(input, at)}${inside ? `.${inside}` : ''}`;
  // A list of traces with an item no format reads: that item is named.
  if ('unread' in list) throw unknownShape(list.unread.item, context.file, place(list.unread.at));
  const { items } = list;
  const traces: Trace[] = [];
  for (const [index, { item, format: itemFormat }] of items.entries()) {
    try {
      const id = `${context.id}-${recordNumber(input, index)}`;
      traces.push(...(await itemFormat.parse(item, { ...context, id })));
    } catch (error) {
      if (!(error instanceof TraceFormatError)) throw error;
      throw new TraceFormatError(context.file, error.problem, {
        format: error.format ?? itemFormat.name,
        position: place(index, error.position),
        cause: error,
      });
    }
  }
  return { traces, runPerLine: true };
}

/**
 * An importer's error in JSON Lines on the file's lines: importers count records (`line 3` is the
 * third record), which are the file's lines unless blank or broken lines come between.
 */
function onFileLines(error: TraceFormatError, lineNumbers: readonly number[]): TraceFormatError {
  const record = /^line (\d+)(?=$|[.[])/.exec(error.position ?? '');
  const line = record ? lineNumbers[Number(record[1]) - 1] : undefined;
  if (line === undefined || line === Number(record![1])) return error;
  return new TraceFormatError(error.file, error.problem, {
    ...(error.format ? { format: error.format } : {}),
    position: `line ${line}${error.position!.slice(record![0].length)}`,
    cause: error,
  });
}

/**
 * A JSON list (or JSON Lines) of traces that some format reads each on its own, such as
 * `faultline convert --to messages` writes for a file that holds several runs: each item with its
 * format, or (`unread`) the first item no format reads when others are read. Undefined for
 * anything else.
 */
function listOfTraces(
  input: RawInput,
):
  | { items: { item: RawInput; format: TraceFormat }[] }
  | { unread: { item: RawInput; at: number } }
  | undefined {
  const values = input.kind === 'json' ? input.value : input.kind === 'jsonl' ? input.records : [];
  if (!Array.isArray(values) || values.length === 0 || !values.every(isObject)) return undefined;
  const items: { item: RawInput; format: TraceFormat }[] = [];
  let unread: { item: RawInput; at: number } | undefined;
  for (const [at, value] of values.entries()) {
    const item: RawInput = { kind: 'json', value };
    const format = detectFormat(item);
    if (format) items.push({ item, format });
    else unread ??= { item, at };
    if (unread && items.length > 0) return { unread };
  }
  return items.length > 0 ? { items } : undefined;
}

/**
 * What the library's methods take: a canonical trace, or any value a format reads, such as the
 * original tool's `{history: [...], question, ground_truth}`.
 */
export type TraceInput = Trace | Record<string, unknown> | readonly unknown[];

/** True for a canonical trace as faultline builds it (not a document still to be read). */
function isCanonicalTrace(value: TraceInput): value is Trace {
  if (Array.isArray(value)) return false;
  const candidate = value as Partial<Trace>;
  return (
    typeof candidate.format === 'string' &&
    Array.isArray(candidate.steps) &&
    Array.isArray(candidate.agents) &&
    typeof candidate.metadata === 'object' &&
    candidate.metadata !== null
  );
}

/**
 * The canonical trace of a value: a trace as it is, anything else read as a file's JSON would be
 * (a plain object of an unknown shape fails with the same one-line error, naming `name`).
 */
export async function toTrace(value: TraceInput, name = 'trace'): Promise<Trace> {
  if (isCanonicalTrace(value)) return value;
  refuseTooDeep(value, { file: name });
  const traces = await importRawInput({ kind: 'json', value }, { file: name, id: name });
  return traces[0]!;
}

/** Parses trace text held in memory (an upload, a test string). */
export async function importTraceText(
  text: string,
  file: string,
  options: LoadOptions = {},
): Promise<Trace[]> {
  return importRawInput(rawInputFromText(text, file), { file, id: idFromFile(file) }, options);
}

/**
 * Parses an uploaded file's bytes: JSON, JSON Lines or an AG2 SQLite database (`logs.db`); a JSON
 * Lines file with a broken line fails with that line's error (`readTracesFromBytes` skips it).
 */
export async function importTraceBytes(
  bytes: Uint8Array,
  file: string,
  options: LoadOptions = {},
): Promise<Trace[]> {
  return importRawInput(rawInputFromBytes(bytes, file), { file, id: idFromFile(file) }, options);
}

/**
 * Parses an uploaded file's bytes as `importTraceBytes` does, skipping the broken lines of a JSON
 * Lines file (each an error in `skipped`) and reading the others.
 */
export async function readTracesFromBytes(
  bytes: Uint8Array,
  file: string,
  options: LoadOptions = {},
): Promise<TracesRead> {
  return importTraces(rawInputFromBytes(bytes, file), { file, id: idFromFile(file) }, options);
}

/** How a path is named in results and messages: standard input (`-`) as `stdin`. */
export const shownAs = (file: string) => (file === STDIN_PATH ? STDIN_NAME : file);

/** Paths as a message lists them: `runs/, stdin`. */
export const shownPaths = (paths: readonly string[]) => paths.map(shownAs).join(', ');

/**
 * Reads every trace in one file (`-`: standard input); a JSON Lines file with a broken line fails
 * with that line's error (`readTracesFromFile` skips it).
 */
export async function loadTraces(file: string, options: LoadOptions = {}): Promise<Trace[]> {
  const input = await readRawInput(file);
  const name = shownAs(file);
  return importRawInput(input, { file: name, id: idFromFile(name) }, options);
}

/**
 * Reads every trace in one file as `loadTraces` does, skipping the broken lines of a JSON Lines file
 * (each an error in `skipped`) and reading the others.
 */
export async function readTracesFromFile(
  file: string,
  options: LoadOptions = {},
): Promise<TracesRead> {
  const input = await readRawInput(file);
  const name = shownAs(file);
  return importTraces(input, { file: name, id: idFromFile(name) }, options);
}

/** Reads the single trace in a file (the first, when a file holds several). */
export async function loadTrace(file: string, options: LoadOptions = {}): Promise<Trace> {
  const traces = await loadTraces(file, options);
  return traces[0]!;
}

/** Sorts names so that `2.json` comes before `10.json`. */
const naturalCompare = new Intl.Collator('en', { numeric: true }).compare;

/** Lists trace files: files as given, folders searched recursively in natural order. */
export async function expandPaths(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (folder: string) => {
    const entries = (await readdir(folder, { withFileTypes: true })).sort((left, right) =>
      naturalCompare(left.name, right.name),
    );
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (TRACE_FILE.test(entry.name)) out.push(path);
    }
  };
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) await walk(path);
    else out.push(path);
  }
  return out;
}

/**
 * Loads many files and folders; yields one result per file, in order, whatever fails. A JSON Lines
 * file's broken lines are skipped (the result's `skipped`) and its other lines read.
 */
export async function* loadBatch(
  paths: readonly string[],
  options: LoadOptions = {},
): AsyncGenerator<LoadResult> {
  for (const path of await expandPaths(paths)) {
    const file = shownAs(path);
    try {
      yield { ok: true, file, ...(await readTracesFromFile(path, options)) };
    } catch (error) {
      if (error instanceof TraceFormatError) yield { ok: false, file, error };
      else if (error instanceof Error && error.name === 'UserError') throw error;
      else
        yield {
          ok: false,
          file,
          error: new TraceFormatError(
            file,
            error instanceof Error ? error.message : String(error),
            { cause: error },
          ),
        };
    }
  }
}
