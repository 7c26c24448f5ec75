/**
 * How deep a trace's JSON may nest. `JSON.parse` reads any depth, but much of what follows walks a
 * value by recursion (`JSON.stringify` of a step's structured content, zod's recursive schemas of
 * OTLP values and LangSmith run trees, inspect and convert writing the trace out): a step whose
 * content nests arrays 5,000 deep overflowed the stack there. So every JSON value read from a
 * trace (a file, a JSON Lines record, an upload, a value given to the library, JSON text inside a
 * field) is measured once, without recursion, and one nested far deeper than real traces are is
 * refused with its position (JSON text inside a field is kept as text); within the limit every
 * recursive walk has stack to spare.
 */
import { TraceFormatError } from '../errors.js';

/**
 * Deepest nesting of arrays and objects read (the document itself is level 1). Real traces nest
 * about 12 levels (the shared data sets and every format's fixture); at 256 the deepest recursive
 * reader (zod's schema of nested LangSmith runs) uses under a third of Node's default stack.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * True when `value` nests arrays and objects deeper than `limit` levels. A walk with its own
 * stack: only arrays and objects are pushed, so a trace's strings cost nothing.
 */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const container = pending.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    if (Array.isArray(container)) {
      for (const item of container as unknown[])
        if (typeof item === 'object' && item !== null) {
          pending.push(item);
          depths.push(depth + 1);
        }
    } else {
      for (const key in container) {
        const item = (container as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) {
          pending.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/**
 * The path to the first value of `value` (in document order) nested deeper than `limit`: a second
 * walk that keeps each value's parent, run once `nestsDeeperThan` has found one; empty for none.
 */
export function pathTooDeep(value: unknown, limit = MAX_JSON_DEPTH): (string | number)[] {
  if (typeof value !== 'object' || value === null) return [];
  interface Entry {
    value: object;
    depth: number;
    parent: Entry | undefined;
    key: string | number | undefined;
  }
  const pending: Entry[] = [{ value, depth: 1, parent: undefined, key: undefined }];
  let found: Entry | undefined;
  while (pending.length > 0 && !found) {
    const entry = pending.pop()!;
    if (entry.depth > limit) found = entry;
    else {
      // Pushed last to first, so that the first value too deep in document order is found.
      const entries = Object.entries(entry.value);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, item] = entries[index]!;
        if (typeof item === 'object' && item !== null)
          pending.push({
            value: item as object,
            depth: entry.depth + 1,
            parent: entry,
            key: Array.isArray(entry.value) ? Number(key) : key,
          });
      }
    }
  }
  const path: (string | number)[] = [];
  for (let entry = found; entry?.key !== undefined; entry = entry.parent) path.push(entry.key);
  return path.reverse();
}

/** What a value nested too deep is told. */
export const TOO_DEEP = `arrays and objects nest more than ${MAX_JSON_DEPTH} levels deep here, far deeper than real traces do (is the file generated or damaged?)`;

/** Renders a zod issue path the way users read JSON: `history[3].content`. */
export function formatPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out.length > 0 ? `.${String(key)}` : String(key);
  }
  return out.length > 0 ? out : '(top level)';
}

/** Path components a position shows of a value nested too deep (the rest is `…`). */
const SHOWN_PATH = 8;

/**
 * Refuses a value that nests arrays and objects deeper than MAX_JSON_DEPTH with a
 * TraceFormatError naming where: the first components of the path to it after `prefix`
 * (`history[1].content[0][0][0][0][0]…`).
 */
export function refuseTooDeep(value: unknown, context: { file: string; prefix?: string }): void {
  if (!nestsDeeperThan(value)) return;
  const path = pathTooDeep(value, MAX_JSON_DEPTH);
  const shown = formatPath(path.slice(0, SHOWN_PATH), context.prefix);
  throw new TraceFormatError(context.file, TOO_DEEP, {
    position: path.length > SHOWN_PATH ? `${shown}…` : shown,
  });
}
