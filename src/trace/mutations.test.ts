/**
 * Bad input gets a clear error, whatever is wrong with it: every format fixture with one field
 * removed or given a value of another type either still imports or fails with a TraceFormatError
 * (one line, naming the file), never with a TypeError or RangeError from inside an importer.
 * The mutations are drawn from a fixed seed, so a failure repeats.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES } from '../../test/paths.js';
import { TraceFormatError } from '../errors.js';
import { importTraceText } from './load.js';

const FOLDER = join(FIXTURES, 'formats');
const FIXTURE_FILES = readdirSync(FOLDER).filter(
  (name) => /\.jsonl?$/.test(name) && !name.endsWith('.golden.json'),
);
/** Mutations tried per fixture. */
const PER_FIXTURE = 200;

/** Values put in place of a field: other types, edge values and odd strings. */
const REPLACEMENTS: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e20,
  '',
  'x',
  'not a date',
  '9'.repeat(30),
  true,
  [],
  [null],
  [{}],
  {},
  { content: null },
];

type Path = (string | number)[];

/** Every path to a value in a JSON document, the document itself first. */
function pathsOf(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...at, index], out));
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...at, key], out);
  return out;
}

/** A copy of `value` with the value at `path` removed (replacement undefined) or replaced. */
function mutated(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(value)) {
    const copy = [...(value as unknown[])];
    if (rest.length === 0 && replacement === undefined) copy.splice(Number(head), 1);
    else copy[Number(head)] = mutated(copy[Number(head)], rest, replacement);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0 && replacement === undefined) delete copy[head];
  else copy[head] = mutated(copy[head], rest, replacement);
  return copy;
}

describe('mutated fixtures', () => {
  for (const name of FIXTURE_FILES) {
    it(`${name}: every mutation imports or fails with a TraceFormatError`, async () => {
      const text = readFileSync(join(FOLDER, name), 'utf8').replace(/^\uFEFF/, '');
      const lines = name.endsWith('.jsonl');
      const document: unknown = lines
        ? text
            .split('\n')
            .filter((line) => line.trim())
            .map((line) => JSON.parse(line) as unknown)
        : JSON.parse(text);
      const paths = pathsOf(document);
      let seed = 1;
      const draw = (count: number) =>
        (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) % count;
      for (let round = 0; round < PER_FIXTURE; round += 1) {
        const path = paths[draw(paths.length)]!;
        const pick = draw(REPLACEMENTS.length + 1);
        const replacement = pick === REPLACEMENTS.length ? undefined : REPLACEMENTS[pick];
        if (path.length === 0 && replacement === undefined) continue;
        const changed = mutated(document, path, replacement);
        const written =
          lines && Array.isArray(changed)
            ? changed.map((record) => JSON.stringify(record)).join('\n')
            : JSON.stringify(changed);
        try {
          await importTraceText(written, name);
        } catch (error) {
          const what = `${path.join('.') || '(the document)'} → ${JSON.stringify(replacement)}`;
          assert.ok(error instanceof TraceFormatError, `${what}: ${String(error)}`);
          assert.ok(error.message.startsWith(name), `${what}: names the file first`);
          assert.doesNotMatch(error.message, /\n/, `${what}: one line`);
        }
      }
    });
  }
});
