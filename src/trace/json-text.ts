/**
 * JSON text as a trace file holds it: JSON Lines read line by line (a broken line kept as an error
 * naming it, beside the others), whether text looks like JSON Lines, and why text is not JSON, with
 * the line and column of the first problem.
 */
import { createRequire } from 'node:module';
import type * as Jsonc from 'jsonc-parser';
import { TraceFormatError } from '../errors.js';
import { MAX_JSON_DEPTH, refuseTooDeep, TOO_DEEP } from './json-depth.js';

/** jsonc-parser, loaded on the first parse failure: reading valid files never needs it. */
let jsonc: typeof Jsonc | undefined;
const jsoncParser = () =>
  (jsonc ??= createRequire(import.meta.url)('jsonc-parser') as typeof Jsonc);

/** What JSON Lines text gives: its records, the line (from 1) of each, and the broken lines. */
export interface JsonLines {
  records: unknown[];
  lineNumbers: number[];
  brokenLines: TraceFormatError[];
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
export function describeJsonError(text: string): { problem: string; position?: string } {
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
export function looksLikeJsonLines(text: string): boolean {
  let lines = 0;
  let objects = true;
  forEachLine(text, (line) => {
    if (line.length === 0) return;
    lines += 1;
    objects &&= line.startsWith('{');
  });
  return lines >= 2 && objects;
}
