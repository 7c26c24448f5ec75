/**
 * The tables of instrumentation packages in docs/LIVE.md and docs/FORMATS.md stay true: both list
 * the same packages, versions, formats and fixtures; each package is installed at the version
 * given (major.minor), and its fixture (a real export, src/trace/__fixtures__/formats) exists and
 * reads, detected, with the format given, into a run with agent steps.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadTraces } from '../src/trace/load.js';
import { readRawInput } from '../src/trace/read-input.js';
import { detectFormat } from '../src/trace/registry.js';
import { FIXTURES, ROOT } from './paths.js';

interface Row {
  package: string;
  version: string;
  format: string;
  fixture: string;
}

/** The rows of the table between `<!-- instrumentations -->` markers, by header. */
function tableOf(document: string): Row[] {
  const text = readFileSync(join(ROOT, 'docs', document), 'utf8');
  const table = /<!-- instrumentations -->\n([\s\S]*?)<!-- \/instrumentations -->/.exec(text)?.[1];
  assert.ok(table, `${document} has no instrumentation table`);
  const [header, , ...lines] = table.trim().split('\n');
  const cells = (line: string) =>
    line
      .replace(/^\||\|$/g, '')
      .split(' | ')
      .map((cell) => cell.trim());
  const names = cells(header!);
  const code = (cell: string) => /`([^`]+)`/.exec(cell)?.[1] ?? cell;
  return lines.map((line) => {
    const row = Object.fromEntries(cells(line).map((cell, index) => [names[index], cell]));
    return {
      package: code(row.package ?? ''),
      version: row.version ?? '',
      format: code(row.format ?? ''),
      fixture: code(row.fixture ?? ''),
    };
  });
}

describe('the instrumentation tables of LIVE.md and FORMATS.md', () => {
  const live = tableOf('LIVE.md');

  it('list the same packages, versions, formats and fixtures', () => {
    assert.ok(live.length >= 3);
    assert.deepEqual(tableOf('FORMATS.md'), live);
  });

  for (const row of live)
    it(`${row.package} ${row.version}: installed so, its fixture read as ${row.format}`, async () => {
      const manifest = join(ROOT, 'node_modules', row.package, 'package.json');
      const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
      assert.ok(version.startsWith(`${row.version}.`), `${row.package} is ${version}`);
      const file = join(FIXTURES, 'formats', row.fixture);
      assert.ok(existsSync(file), `${row.fixture} exists`);
      assert.equal(detectFormat(await readRawInput(file))?.name, row.format);
      const [trace] = await loadTraces(file);
      assert.ok(trace!.steps.filter((step) => step.role === 'agent').length >= 3);
    });
});
