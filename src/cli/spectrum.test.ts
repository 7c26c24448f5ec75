/** `faultline spectrum`, run as a user runs it, over runs written to a temporary folder. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  asWhoAndWhen,
  pricingRun,
  pricingRuns,
} from '../attribution/spectrum/__fixtures__/runs.js';
import { ROOT } from '../../test/paths.js';
import { runFaultline } from '../../test/run-cli.js';
import { databaseLocation } from '../config.js';
import { openDatabase } from '../store/database.js';
import { RunStore } from '../store/runs.js';

const faultline = (...args: string[]) => runFaultline(args);

/** Writes runs as canonical JSON; without outcome in the file, under passed/ or failed/. */
function writeRuns(byFolder: boolean): string {
  const folder = join(process.env.FAULTLINE_HOME!, `runs-${byFolder ? 'folders' : 'flat'}`);
  for (const trace of pricingRuns(6, 2, 5)) {
    const sub = byFolder ? join(folder, trace.outcome === 'success' ? 'passed' : 'failed') : folder;
    mkdirSync(sub, { recursive: true });
    const written = byFolder ? { ...trace, outcome: undefined } : trace;
    writeFileSync(join(sub, `${trace.id}.json`), JSON.stringify(written));
  }
  return folder;
}

describe('faultline spectrum', () => {
  it('ranks the units, names the failed run’s suspicious step with its counts', async () => {
    const folder = writeRuns(false);
    const { code, stdout, stderr } = await faultline('spectrum', folder);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^task task-[0-9a-f]{12}: 8 failing, 5 passing \(kulczynski2\)/);
    assert.match(
      stdout,
      /units \(most suspicious first\)\n.*\n\s+[\d.]+\s+6\/8\s+0\/5\s+Researcher · report/,
    );
    // the last failing run read is run-7, an analyst's mistake
    assert.match(
      stdout,
      /failed run .*run-7\.json\n {2}step 3 {2}Analyst .*in 2 of 8 failing runs and 0 of 5 passing/,
    );
    assert.match(stdout, /verdict Analyst at step 3/);
    const chosen = await faultline(
      'spectrum',
      folder,
      '--failed',
      'run-0',
      '--json',
      '--formula',
      'ochiai',
    );
    const result = JSON.parse(chosen.stdout) as {
      verdict: unknown;
      formula: string;
      conclusive: boolean;
    };
    assert.deepEqual(result.verdict, { agent: 'Researcher', step: 2 });
    assert.equal(result.formula, 'ochiai');
    assert.equal(result.conclusive, true);
  });

  it('reads outcomes from passed/ and failed/ folders, and lists tasks when runs mix them', async () => {
    const folder = writeRuns(true);
    const { code, stdout } = await faultline('spectrum', folder);
    assert.equal(code, 0);
    assert.match(stdout, /8 failing, 5 passing/);
    const mixed = await faultline(
      'spectrum',
      folder,
      join(ROOT, 'examples/who-and-when-ag-58.json'),
    );
    assert.equal(mixed.code, 2);
    assert.match(
      mixed.stderr,
      /are of 2 tasks \(task-[0-9a-f]{12} \(13 runs\), task-[0-9a-f]{12} \(1 run\)\); pick one with --task ID/,
    );
  });

  it('attribute combines a run with the other runs of its task in the batch, one passing', async () => {
    const folder = writeRuns(true);
    const example = join(ROOT, 'examples/who-and-when-ag-58.json');
    const { code, stdout, stderr } = await faultline('attribute', folder, example, '--json');
    assert.equal(code, 0, stderr);
    assert.match(
      stderr,
      /8 runs that did not pass \(1 task\) have other runs of their task in this batch, at least one passing/,
    );
    const verdicts = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; method: string; step: number | null });
    assert.equal(verdicts.length, 14);
    const byId = new Map(verdicts.map((verdict) => [verdict.id, verdict]));
    // run-0 failed (folder failed/): the researcher's report, read against the passing runs
    assert.deepEqual([byId.get('run-0')?.method, byId.get('run-0')?.step], ['combined', 2]);
    assert.equal(byId.get('run-8')?.method, 'offline', 'a passing run is attributed as before');
    assert.equal(verdicts.at(-1)?.method, 'offline', 'a run with no other run of its task');
    const alone = await faultline('attribute', folder, '--json', '--method', 'offline');
    assert.ok(!alone.stdout.includes('"method":"combined"'), '--method offline keeps the model');
  });

  it('is evaluated with eval --method spectrum over task folders of Who&When runs', async () => {
    const root = join(process.env.FAULTLINE_HOME!, 'tasks');
    const faults = ['researcher', 'researcher', 'researcher', 'analyst', 'none', 'none'] as const;
    for (const item of ['widget', 'gadget', 'gizmo']) {
      mkdirSync(join(root, item), { recursive: true });
      faults.forEach((fault, index) => {
        const labels = index === 0 ? { agent: 'Researcher', step: 2 } : undefined;
        const record = asWhoAndWhen(pricingRun(index, fault, item), labels);
        writeFileSync(join(root, item, `${index}.json`), JSON.stringify(record));
      });
    }
    const { code, stdout, stderr } = await faultline(
      'eval',
      root,
      '--method',
      'spectrum,first-agent',
    );
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      /\| spectrum \(with GT\) \| Algorithm-Generated \| 3 \| 100\.0% \[100\.0, 100\.0\] \| 100\.0%/,
    );
    assert.match(stdout, /\| first-agent \(with GT\) \| Algorithm-Generated \| 3 \| 0\.0%/);
    assert.match(stdout, /15 trace\(s\) without agent and step labels were skipped/);
  });

  it('reads the runs of a task from the store', async () => {
    const db = await openDatabase(databaseLocation());
    try {
      const store = new RunStore(db);
      for (const trace of pricingRuns(4, 0, 3))
        await store.save({ ...trace, id: `stored-${trace.id}`, metadata: { task: 'nightly' } });
    } finally {
      await db.close();
    }
    const { code, stdout, stderr } = await faultline('spectrum', '--task', 'nightly');
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^task nightly: 4 failing, 3 passing/);
    assert.match(stdout, /verdict Researcher at step 2/);
    const none = await faultline('spectrum', '--task', 'weekly');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /the store holds no run of task weekly/);

    // attribute --task: a failed run's file, compared with the task's runs in the store
    const file = join(process.env.FAULTLINE_HOME!, 'nightly-failed.json');
    writeFileSync(file, JSON.stringify(pricingRun(9, 'researcher')));
    const verdict = await faultline('attribute', file, '--task', 'nightly', '--json');
    assert.equal(verdict.code, 0, verdict.stderr);
    const result = JSON.parse(verdict.stdout) as { method: string; agent: string; step: number };
    assert.deepEqual([result.method, result.agent, result.step], ['combined', 'Researcher', 2]);
    const offline = await faultline('attribute', file, '--task', 'nightly', '--method', 'offline');
    assert.equal(offline.code, 2);
    assert.match(
      offline.stderr,
      /--method offline compares with none; drop --method, or drop --task/,
    );
  });
});
