/** `faultline diff` and `attribute --method diverge --ref`, run as a user runs them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runFaultline } from '../../test/run-cli.js';

const FIXTURES = 'src/attribution/diverge/__fixtures__';
const FAILED = `${FIXTURES}/failed.json`;
const PASSED = `${FIXTURES}/passed.json`;
const OTHER = `${FIXTURES}/other-task.json`;

const faultline = (...args: string[]) => runFaultline(args);

describe('faultline diff', () => {
  it('names the first step that departs in substance, both sides quoted, runs aligned around it', async () => {
    const { code, stdout, stderr } = await faultline('diff', FAILED, PASSED);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /against .*passed\.json: diverges at step 4 \(Calculator\)/);
    assert.match(stdout, /a figure changed: 1450 where the passing run has 1540/);
    assert.match(
      stdout,
      /failed {2}step 4 {2}"Apples 1,200 plus pears 340 makes 1,450 in total\."/,
    );
    assert.match(
      stdout,
      /passed {2}step 4 {2}"Apples 1,200 plus pears 340 makes 1,540 in total\."/,
    );
    assert.match(stdout, /^> #4 Calculator .* ≠ #4 Calculator .* numbers$/m);
    assert.match(stdout, /^ {2}#1 Planner .* ~ #1 Planner/m);
    assert.match(
      stdout,
      /7 steps against 7: 3 alike, 2 reworded, 2 changed, 0 inserted, 0 missing/,
    );
  });

  it('writes the whole diff as JSON', async () => {
    const { code, stdout } = await faultline('diff', FAILED, PASSED, '--json');
    assert.equal(code, 0);
    const diff = JSON.parse(stdout) as {
      divergence: { failedStep: number; passedStep: number; kind: string };
      pairs: unknown[];
      failed: { name: string };
    };
    assert.deepEqual(
      [diff.divergence.failedStep, diff.divergence.passedStep, diff.divergence.kind],
      [4, 4, 'changed'],
    );
    assert.equal(diff.pairs.length, 7);
    assert.equal(diff.failed.name, FAILED);
  });

  it('says "no divergence" for identical runs', async () => {
    const { code, stdout } = await faultline('diff', PASSED, PASSED);
    assert.equal(code, 0);
    assert.match(stdout, /: no divergence\n/);
  });

  it('refuses runs of different tasks, and unreadable files, on one line with exit 2', async () => {
    const tasks = await faultline('diff', FAILED, OTHER);
    assert.equal(tasks.code, 2);
    assert.match(
      tasks.stderr,
      /^faultline: .*failed\.json and .*other-task\.json are runs of different tasks \("How many apples.*" and "Write a haiku.*"\)/,
    );
    assert.equal(tasks.stderr.trim().split('\n').length, 1);
    const missing = await faultline('diff', FAILED, `${FIXTURES}/nowhere.json`);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nowhere\.json/);
    assert.equal(missing.stderr.trim().split('\n').length, 1);
  });
});

describe('faultline attribute --method diverge', () => {
  it('names the diverging step and agent against --ref, with the divergence in --json', async () => {
    const { code, stdout, stderr } = await faultline(
      'attribute',
      FAILED,
      '--method',
      'diverge',
      '--ref',
      PASSED,
      '--json',
    );
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout) as {
      agent: string;
      step: number;
      method: string;
      reason: string;
      divergence: { failedStep: number; passedStep: number; failed: string; passed: string };
    };
    assert.deepEqual([result.agent, result.step, result.method], ['Calculator', 4, 'diverge']);
    assert.match(result.divergence.failed, /1,450/);
    assert.match(result.divergence.passed, /1,540/);
    assert.match(result.reason, /departs from .*passed\.json at step 4/);
  });

  it('says how to give the passing run when --ref is missing, and refuses --ref for other methods', async () => {
    const missing = await faultline('attribute', FAILED, '--method', 'diverge');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^faultline: .*give that run with --ref PASSED\n$/);
    const stray = await faultline('attribute', FAILED, '--ref', PASSED);
    assert.equal(stray.code, 2);
    assert.match(
      stray.stderr,
      /^faultline: --ref names the passing run .*add --method diverge, or drop --ref\n$/,
    );
  });
});
