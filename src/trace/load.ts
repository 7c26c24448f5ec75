/**
 * Loading traces from disk: one file, or many files and folders in a batch where one bad file
 * does not stop the rest, nor one broken line of a JSON Lines file the file's other lines. Each
 * batch item is a discriminated result, never a thrown string. A file is read (read-input.ts) and
 * then imported (import-input.ts).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TraceFormatError } from '../errors.js';
import { idFromFile } from './format.js';
import { importRawInput, importTraces, type LoadOptions, type TracesRead } from './import-input.js';
import { refuseTooDeep } from './json-depth.js';
import type { Trace } from './model.js';
import {
  STDIN_NAME,
  STDIN_PATH,
  rawInputFromBytes,
  rawInputFromText,
  readRawInput,
} from './read-input.js';

export { importRawInput, importTraces, type LoadOptions, type TracesRead } from './import-input.js';

/** One file's outcome in a batch: read (maybe with lines skipped), or not read at all. */
export type LoadResult =
  ({ ok: true; file: string } & TracesRead) | { ok: false; file: string; error: TraceFormatError };

/** A trace file's name: JSON, JSON Lines or SQLite, each maybe gzip-compressed. */
const TRACE_FILE = /\.(json|jsonl|ndjson|db|sqlite3?)(\.gz)?$/i;

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
