/**
 * The contract every input format implements, and the small helpers importers share:
 * validating with zod into a positioned TraceFormatError, and turning structured content into text.
 */
import type { z } from 'zod';
import { TraceFormatError } from '../errors.js';
import { formatPath, nestsDeeperThan } from './json-depth.js';
import type { ToolCall, Trace } from './model.js';
import type { RawInput } from './read-input.js';

/** What an importer knows about the file it reads. */
export interface ImportContext {
  /** The file as given or found; used in error messages and as `trace.source`. */
  file: string;
  /** A default trace id derived from the file name. */
  id: string;
}

/** An input format: recognised from content, turned into canonical traces. */
export interface TraceFormat {
  /** Registry key, used with `--format`. */
  name: string;
  /** One line for `--help` and error messages. */
  description: string;
  /** Cheap check of the shape; must not throw. */
  detect(input: RawInput): boolean;
  /** Full parse; throws TraceFormatError naming the position of the first problem. */
  parse(input: RawInput, context: ImportContext): Trace[] | Promise<Trace[]>;
  /**
   * True when each JSON Lines record is a run of its own (AEGIS), so that a broken line costs that
   * run alone; otherwise a file's lines are the events of its runs.
   */
  recordsAreRuns?: boolean;
}

/** The field name importers give the records of a JSON Lines file, as if they were one list. */
export const JSON_LINES = 'line';

/**
 * Where the `index`th item of a list field is, as users find it: `history[3]`, or `line 4` for the
 * records of a JSON Lines file (field JSON_LINES), counted from 1 as editors number lines.
 */
export function itemPosition(field: string, index: number): string {
  return field === JSON_LINES ? `line ${index + 1}` : `${field}[${index}]`;
}

/**
 * Where the `index`th record of a file is: `[3]` in a JSON list, `line 4` in JSON Lines. Inside an
 * importer a JSON Lines position counts records; import-input.ts turns it into the file's line where blank
 * or broken lines come between.
 */
export function recordPosition(input: RawInput, index: number): string {
  return itemPosition(input.kind === 'jsonl' ? JSON_LINES : '', index);
}

/**
 * The number, from 1, that names the `index`th record of a file in trace ids (`runs-4`): its line in
 * JSON Lines (so that a broken line before it does not renumber it), else its place in the list.
 */
export function recordNumber(input: RawInput, index: number): number {
  return input.kind === 'jsonl' ? (input.lineNumbers[index] ?? index + 1) : index + 1;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** Reads the value at a path, for naming what was found instead of what was expected. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * Parse settings for untrusted input: stop at the first problem. Zod otherwise collects every
 * issue, and 5 million numbers where tool calls belong made 5 million issues (3 GB, 10 s) to report
 * the first. `abortEarly` is zod 4's own (its `validate` sets it); its public type omits it.
 */
export const FIRST_ISSUE = { abortEarly: true } as z.core.ParseContext<z.core.$ZodIssue>;

/** Validates `value` with `schema`, or throws a TraceFormatError naming the first bad field. */
export function validate<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  context: { file: string; format: string; prefix?: string },
): z.infer<Schema> {
  const result = schema.safeParse(value, FIRST_ISSUE);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const position = formatPath(issue.path, context.prefix);
  const found = valueAt(value, issue.path);
  const problem =
    found === undefined
      ? `missing ${String(issue.path.at(-1) ?? 'value')}`
      : issue.code === 'invalid_type'
        ? `expected ${issue.expected}, found ${describeValue(found)}`
        : `${issue.message.replace(/^Invalid input: /, '')} (found ${describeValue(found)})`;
  throw new TraceFormatError(context.file, problem, { format: context.format, position });
}

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Text of a message content in any common shape: a string, OpenAI/Anthropic content parts,
 * OTel GenAI parts, or any other JSON (kept as compact JSON so nothing is lost).
 */
export function textOf(content: unknown): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (typeof content === 'number' || typeof content === 'boolean') return String(content);
  if (Array.isArray(content)) {
    const parts = content.map((part) => {
      if (typeof part === 'string') return part;
      if (isObject(part)) {
        if (typeof part.text === 'string') return part.text;
        if (typeof part.content === 'string') return part.content;
      }
      return JSON.stringify(part);
    });
    return parts.join('\n');
  }
  if (isObject(content)) {
    if (typeof content.content === 'string') return content.content;
    if (typeof content.text === 'string') return content.text;
  }
  return JSON.stringify(content);
}

/** Arguments of a tool call as text, whether the source wrote them as a string or an object. */
export function argumentsText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Who speaks a tool output: the tool that produced it, `tools` when several different ones did,
 * undefined when a name is missing (or there is none) and the caller decides.
 */
export function toolSpeaker(names: readonly (string | null | undefined)[]): string | undefined {
  const tools = [...new Set(names)];
  if (tools.length === 0 || !tools.every((name): name is string => Boolean(name))) return undefined;
  return tools.length === 1 ? tools[0] : 'tools';
}

/**
 * JSON text parsed; any other value, text that is not JSON, or JSON nested deeper than a trace may
 * be (json-depth.ts), returned as it is.
 */
export function parseJsonOr(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value;
  }
  return nestsDeeperThan(parsed) ? value : parsed;
}

/**
 * Tool calls of an OpenAI-style assistant message: `tool_calls[].function.{name, arguments}`,
 * or `name`/`arguments` on the call itself as some exporters write them.
 */
export function openAiToolCalls(message: Record<string, unknown> | undefined): ToolCall[] {
  if (!message || !Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.filter(isObject).map((call) => {
    const fn = isObject(call.function) ? call.function : {};
    return {
      ...(typeof call.id === 'string' ? { id: call.id } : {}),
      name: String(fn.name ?? call.name ?? 'unknown'),
      arguments: argumentsText(fn.arguments ?? call.arguments),
    };
  });
}

/** The assistant message of a chat-completions response (`choices[0].message`), or an empty one. */
export function completionMessage(response: unknown): Record<string, unknown> {
  const choices = isObject(response) && Array.isArray(response.choices) ? response.choices : [];
  return isObject(choices[0]) && isObject(choices[0].message) ? choices[0].message : {};
}

/** A file-derived trace id: the base name without extension. */
export function idFromFile(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base.replace(/\.(jsonl?|ndjson|db|sqlite3?)(\.gz)?$/i, '') || base;
}
