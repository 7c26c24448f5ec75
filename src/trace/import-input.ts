/**
 * Turning a file's raw input (read-input.ts) into traces: the named or detected format reads it,
 * or, for a list of traces (a JSON list or JSON Lines of runs), each item's own format. A JSON Lines
 * file's broken lines are skipped, each saying what the file gives without it; an importer's
 * position is put on the file's lines.
 */
import { TraceFormatError } from '../errors.js';
import {
  isObject,
  recordNumber,
  recordPosition,
  type ImportContext,
  type TraceFormat,
} from './format.js';
import type { Trace } from './model.js';
import type { RawInput } from './read-input.js';
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
