/**
 * Hostile versions of real trace files, for the fuzz test (issue 50): a format fixture, changed the
 * ways an attacker or a careless exporter would (fields deleted, retyped or replaced, huge strings
 * of the characters patterns repeat, deep nesting, long arrays, terminal escape sequences), then
 * written in an odd encoding (UTF-16, gzip twice) or cut and flipped as bytes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { ROOT } from '../paths.js';

const FIXTURES = join(ROOT, 'src/trace/__fixtures__/formats');

/** A fixture as values: one JSON document, or the records of a JSON Lines file. */
export interface Fixture {
  name: string;
  lines: boolean;
  value: unknown;
}

/** Every JSON and JSON Lines format fixture (the SQLite ones are bytes no mutation here fits). */
export function loadFixtures(): Fixture[] {
  return readdirSync(FIXTURES)
    .filter((name) => /\.jsonl?$/.test(name) && !name.endsWith('.golden.json'))
    .sort()
    .map((name) => {
      const text = readFileSync(join(FIXTURES, name), 'utf8').replace(/^\uFEFF/, '');
      const lines = name.endsWith('.jsonl');
      const value: unknown = lines
        ? text
            .split('\n')
            .filter((line) => line.trim())
            .map((line) => JSON.parse(line) as unknown)
        : JSON.parse(text);
      return { name, lines, value };
    });
}

/** Characters hostile strings repeat: what patterns backtrack on, and escape sequences. */
const HOSTILE_RUNS = [' ', '(', '\n', '*', '{', '`', '“', '7', 'a', '\u001b]0;x\u0007', '\u202e'];

/** One change to a value, at the `at`-th of its nodes (in document order, modulo their number). */
export type Mutation =
  | { kind: 'delete'; at: number }
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'retype'; at: number }
  | { kind: 'huge-string'; at: number; run: string; length: number }
  | { kind: 'deep'; at: number; depth: number }
  | { kind: 'long-array'; at: number; length: number };

/** How the changed value is written. */
export type Encoding = 'utf8' | 'utf16le' | 'utf16be' | 'gzip' | 'gzip-twice' | 'cut' | 'flip';

/** A hostile file: which fixture, what changes, how it is written, where bytes are cut or flipped. */
export interface HostileCase {
  fixture: number;
  mutations: Mutation[];
  encoding: Encoding;
  at: number;
}

const at = fc.nat();

/**
 * How large a hostile string or array may be: 100,000 in `npm test` (a bound that keeps each case
 * to a second or so), FUZZ_SIZE in `npm run fuzz` (300,000 there).
 */
const MAX_SIZE = Number(process.env.FUZZ_SIZE ?? 100_000);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at }),
  fc.record({ kind: fc.constant('replace' as const), at, value: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ kind: fc.constant('retype' as const), at }),
  fc.record({
    kind: fc.constant('huge-string' as const),
    at,
    run: fc.constantFrom(...HOSTILE_RUNS),
    length: fc.integer({ min: 1_000, max: MAX_SIZE }),
  }),
  fc.record({ kind: fc.constant('deep' as const), at, depth: fc.integer({ min: 20, max: 400 }) }),
  fc.record({
    kind: fc.constant('long-array' as const),
    at,
    // An array of copies of a node: a copy of a step list's item is a step, so a tenth of the size.
    length: fc.integer({ min: 100, max: Math.ceil(MAX_SIZE / 10) }),
  }),
);

/** Hostile cases over `fixtures`. */
export function hostileCases(fixtures: readonly Fixture[]): fc.Arbitrary<HostileCase> {
  return fc.record({
    fixture: fc.nat({ max: fixtures.length - 1 }),
    mutations: fc.array(mutation, { minLength: 1, maxLength: 4 }),
    encoding: fc.constantFrom<Encoding>(
      'utf8',
      'utf8',
      'utf8',
      'utf16le',
      'utf16be',
      'gzip',
      'gzip-twice',
      'cut',
      'flip',
    ),
    at,
  });
}

/** Largest file a case writes: changes compound (an array of copies of a huge string), and past
 * this they say nothing more of the code, only of the machine's memory. */
const MAX_FILE_CHARACTERS = 20_000_000;

type Container = Record<string, unknown> | unknown[];

/**
 * Every container in a value, with each of its keys: the places a mutation can change. A long
 * array repeats one node, so a container is visited once however often it is referred to.
 */
function places(root: Container): [Container, string | number][] {
  const out: [Container, string | number][] = [];
  const stack: Container[] = [root];
  const seen = new Set<Container>();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    const keys: (string | number)[] = Array.isArray(node)
      ? node.map((_, i) => i)
      : Object.keys(node);
    for (const key of keys) {
      out.push([node, key]);
      const child = (node as Record<string | number, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push(child as Container);
    }
  }
  return out;
}

/** A value of another JSON type than `value`. */
function retyped(value: unknown): unknown {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'number') return [value];
  if (Array.isArray(value)) return { length: value.length };
  if (value !== null && typeof value === 'object') return String(Object.keys(value).length);
  return 'x';
}

function applyMutation(root: Container, change: Mutation): void {
  const all = places(root);
  if (all.length === 0) return;
  const [node, key] = all[change.at % all.length]!;
  const target = node as Record<string | number, unknown>;
  switch (change.kind) {
    case 'delete':
      if (Array.isArray(node)) node.splice(key as number, 1);
      else delete target[key];
      return;
    case 'replace':
      target[key] = change.value;
      return;
    case 'retype':
      target[key] = retyped(target[key]);
      return;
    case 'huge-string':
      target[key] = change.run.repeat(Math.ceil(change.length / change.run.length));
      return;
    case 'deep': {
      let value = target[key];
      for (let level = 0; level < change.depth; level += 1) value = [value];
      target[key] = value;
      return;
    }
    case 'long-array': {
      // Copies of one node, as many as keep the value within MAX_FILE_CHARACTERS when written.
      const size = (JSON.stringify(target[key]) ?? 'null').length + 1;
      const length = Math.min(change.length, Math.floor(MAX_FILE_CHARACTERS / size));
      target[key] = Array.from({ length }, () => target[key] ?? null);
      return;
    }
  }
}

/** The fixture with the first `count` changes made, as text; undefined when it grows too large. */
function changedText(fixture: Fixture, changes: readonly Mutation[]): string | undefined {
  const holder = [structuredClone(fixture.value) as Container];
  for (const change of changes) applyMutation(holder, change);
  const changed = holder[0];
  try {
    const text =
      fixture.lines && Array.isArray(changed)
        ? changed.map((record) => JSON.stringify(record)).join('\n')
        : (JSON.stringify(changed) ?? 'null');
    return text.length <= MAX_FILE_CHARACTERS ? text : undefined;
  } catch {
    return undefined; // longer than a string can be
  }
}

/** The file a case makes: its name (the fixture's) and bytes. As many of its changes as fit. */
export function hostileFile(
  fixtures: readonly Fixture[],
  test: HostileCase,
): { name: string; bytes: Uint8Array } {
  const fixture = fixtures[test.fixture]!;
  let text: string | undefined;
  for (let count = test.mutations.length; text === undefined && count >= 0; count -= 1)
    text = changedText(fixture, test.mutations.slice(0, count));
  if (text === undefined) throw new Error(`${fixture.name} does not fit even unchanged`);
  const utf8 = Buffer.from(text, 'utf8');
  const bytes = ((): Buffer => {
    switch (test.encoding) {
      case 'utf8':
        return utf8;
      case 'utf16le':
        return Buffer.from(`\uFEFF${text}`, 'utf16le');
      case 'utf16be':
        return Buffer.from(`\uFEFF${text}`, 'utf16le').swap16();
      case 'gzip':
        return gzipSync(utf8);
      case 'gzip-twice':
        return gzipSync(gzipSync(utf8));
      case 'cut':
        return utf8.subarray(0, test.at % (utf8.length + 1));
      case 'flip': {
        const flipped = Buffer.from(utf8);
        if (flipped.length > 0) flipped[test.at % flipped.length]! ^= 0xff;
        return flipped;
      }
    }
  })();
  const compressed = test.encoding === 'gzip' || test.encoding === 'gzip-twice';
  return { name: compressed ? `${fixture.name}.gz` : fixture.name, bytes: new Uint8Array(bytes) };
}
