/**
 * `faultline train` writes what the library's trainModelFile returns: the same runs and settings
 * give the same file, byte for byte, through either door (scorers, familiarity, both mode
 * classifiers and the calibration), on a small part of the shared data.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { AEGIS, HAS_SHARED_DATA, MAD_MAST, ROOT, WHO_AND_WHEN } from '../../test/paths.js';
import { trainModelFile } from '../index.js';
import type { Trace } from '../trace/model.js';
import { forEachTrace } from './batch.js';

const run = promisify(execFile);
const CLI = join(ROOT, 'src/cli/index.ts');

/** The first `count` files of a folder, in name order, copied into `into`. */
async function copyFirst(from: string, into: string, count: number): Promise<void> {
  await mkdir(into, { recursive: true });
  const names = (await readdir(from)).filter((name) => name.endsWith('.json')).sort();
  for (const name of names.slice(0, count)) await cp(join(from, name), join(into, name));
}

async function tracesIn(folder: string): Promise<Trace[]> {
  const traces: Trace[] = [];
  await forEachTrace([folder], {}, (trace) => {
    traces.push(trace);
  });
  return traces;
}

describe(
  'train through the CLI and the library',
  { skip: HAS_SHARED_DATA ? false : `shared data not found at ${WHO_AND_WHEN}` },
  () => {
    let folder = '';
    before(async () => {
      folder = await mkdtemp(join(tmpdir(), 'faultline-train-'));
      // Three systems, so the calibration has held-out systems; mode-labelled runs (MAD) and runs
      // that label faults per agent (AEGIS) above the fewest the mode classifiers learn from.
      for (const system of ['Hand-Crafted', 'Algorithm-Generated'])
        await copyFirst(join(WHO_AND_WHEN, system), join(folder, 'runs', system), 12);
      const aegis = (await readFile(join(AEGIS, 'agentverse.jsonl'), 'utf8')).split('\n');
      await writeFile(
        join(folder, 'runs', 'agentverse.jsonl'),
        `${aegis.slice(0, 22).join('\n')}\n`,
      );
      await copyFirst(join(MAD_MAST, 'ag2'), join(folder, 'modes'), 24);
    });
    after(async () => {
      await rm(folder, { recursive: true, force: true });
    });

    it('writes the file trainModelFile returns', async () => {
      // Run from the repository (where tsx resolves); folders are recorded relative to it.
      const runsFolder = join(folder, 'runs');
      const modesFolder = join(folder, 'modes');
      const out = join(folder, 'model.json');
      await run(
        process.execPath,
        [
          '--import',
          'tsx',
          CLI,
          'train',
          '--data',
          runsFolder,
          '--modes-data',
          modesFolder,
          '--out',
          out,
        ],
        { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', FAULTLINE_HOME: join(folder, 'home') } },
      );
      const written = await readFile(out, 'utf8');
      const runs = await tracesIn(runsFolder);
      const model = trainModelFile(runs, {
        data: [relative(ROOT, runsFolder)],
        modes: {
          runs: [...(await tracesIn(modesFolder)), ...runs],
          data: [relative(ROOT, modesFolder)],
        },
      });
      assert.ok(model.modes && model.agentModes && model.calibration, 'every part is trained');
      assert.equal(written, `${JSON.stringify(model, null, 1)}\n`);
    });
  },
);
