/**
 * Bad input in a batch, through the command as a user runs it: a broken line of a JSON Lines file
 * is reported with its line and skipped while the other lines are attributed (exit 2, as for a bad
 * file in a folder), and a trace nested far too deep gets one clear line instead of a stack
 * overflow.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { FIXTURES, ROOT } from '../../test/paths.js';
import { MAX_JSON_DEPTH } from '../trace/json-depth.js';

const run = promisify(execFile);
const CLI = join(ROOT, 'src/cli/index.ts');
const RUNS = join(FIXTURES, 'broken-lines/runs-one-broken-line.jsonl');
const EVENTS = join(FIXTURES, 'broken-lines/magentic-one-broken-event.jsonl');

describe('bad input in a batch', () => {
  let folder = '';
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'faultline-batch-'));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  /** Runs the CLI in a child process with its home in the temporary folder. */
  async function faultline(...args: string[]) {
    const running = run(process.execPath, ['--import', 'tsx', CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', FAULTLINE_HOME: join(folder, 'home') },
    });
    try {
      return { code: 0, ...(await running) };
    } catch (error) {
      return error as { code: number; stdout: string; stderr: string };
    }
  }

  it('attributes the ten runs around a broken line, names the line and exits 2', async () => {
    const { code, stdout, stderr } = await faultline('attribute', RUNS, '--json');
    assert.equal(code, 2);
    const results = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; agent: string | null });
    assert.equal(results.length, 10);
    assert.ok(results.every((result) => result.agent !== null));
    assert.equal(
      stderr,
      `faultline: ${RUNS} at line 6: the JSON ends too early (is the file truncated?); the line is skipped, and the file's other runs are read\n`,
    );
  });

  it('says in a folder how many files were read in part', async () => {
    const runs = join(folder, 'runs');
    await mkdir(runs);
    await copyFile(RUNS, join(runs, 'a.jsonl'));
    await copyFile(join(FIXTURES, 'formats/messages-history.json'), join(runs, 'b.json'));
    await copyFile(join(FIXTURES, 'negative/truncated.json'), join(runs, 'c.json'));
    const { code, stdout, stderr } = await faultline('attribute', runs, '--json');
    assert.equal(code, 2);
    assert.equal(stdout.trim().split('\n').length, 11);
    assert.match(
      stderr,
      /\nfaultline: 1 of 3 files could not be read, 1 was read in part \(broken lines skipped\)\n$/,
    );
  });

  it("shows a run's other events around a broken event line and says the run lacks it", async () => {
    const { code, stdout, stderr } = await faultline('inspect', EVENTS);
    assert.equal(code, 2);
    assert.match(stdout, /WebSurfer/);
    assert.match(
      stderr,
      /^faultline: .*magentic-one-broken-event\.jsonl at line 3: the JSON ends too early \(is the file truncated\?\); the line is skipped, and the run is read without it\n$/,
    );
  });

  it('attributes, shows and converts a trace nested up to the limit', async () => {
    // LangGraph nodes nested in child_runs, two levels a run (zod's recursive schema reads them),
    // around a tool run.
    const runs = Math.floor(MAX_JSON_DEPTH / 2) - 2;
    const node = (index: number) => {
      const name = index % 2 === 0 ? 'planner' : 'coder';
      return `{"id": "n${index}", "name": "${name}", "run_type": "chain", "extra": {"metadata": {"langgraph_node": "${name}"}}, "outputs": {"output": "Step ${index}: 6 x 7 is ${40 + (index % 5)}."}, "child_runs": [`;
    };
    const tool =
      '{"id": "t", "name": "calculator", "run_type": "tool", "inputs": {"input": "6 * 7"}, "outputs": {"output": "43"}}';
    const nodes = Array.from({ length: runs }, (_, index) => node(index)).join('');
    const file = join(folder, 'nested-runs.json');
    await writeFile(file, `${nodes}${tool}${']}'.repeat(runs)}`);
    for (const args of [
      ['attribute', '--json'],
      ['inspect', '--json'],
      ['convert', '--to', 'canonical'],
    ]) {
      const { code, stdout } = await faultline(...args, file);
      assert.equal(code, 0, args[0]);
      assert.ok(stdout.startsWith('{'), args[0]);
    }
  });

  it('answers a step nested 5,000 deep with one line naming where, for each command', async () => {
    const deep = join(FIXTURES, 'negative/content-nested-too-deep.json');
    for (const command of ['attribute', 'inspect', 'convert']) {
      const { code, stdout, stderr } = await faultline(command, deep);
      assert.equal(code, 2, command);
      assert.equal(stdout, '');
      assert.match(
        stderr,
        /^faultline: .*content-nested-too-deep\.json at history\[1\]\.content\[0\]\[0\]\[0\]\[0\]\[0\]…: arrays and objects nest more than 256 levels deep here, far deeper than real traces do \(is the file generated or damaged\?\)\n$/,
      );
    }
  });

  it('reads hostile names, encodings and escapes in one folder, each file shown, nothing raw', async () => {
    const hostile = join(folder, 'hostile');
    await mkdir(hostile, { recursive: true });
    const run = (name: string, steps = 3) => ({
      question: 'What is 17 * 23?',
      history: [
        { role: 'user', name: 'human', content: 'What is 17 * 23?' },
        ...Array.from({ length: steps }, (_, index) => ({
          role: 'assistant',
          name: index % 2 ? 'Verifier' : name,
          content: `step ${index}: 17 * 23 = 381`,
        })),
      ],
    });
    const files: Record<string, string | Buffer> = {
      'a-spaces.json': JSON.stringify(run(`A${' '.repeat(200_000)}B`)),
      'b-two-megabytes.json': JSON.stringify(run('X'.repeat(2_000_000), 300)),
      'c-lines.json': JSON.stringify(run(`N${'\n'.repeat(10_000)}M`, 20)),
      'd-escapes.json': JSON.stringify(run('Evil\u001b]0;pwned\u0007\u001b[2J')),
      'e-utf16.json': Buffer.from(`\uFEFF${JSON.stringify(run('Wide'))}`, 'utf16le'),
      'f-good.json': JSON.stringify(run('Planner')),
    };
    for (const [name, content] of Object.entries(files))
      await writeFile(join(hostile, name), content);
    for (const command of ['inspect', 'attribute']) {
      const { code, stdout, stderr } = await faultline(command, hostile);
      assert.equal(code, 0, `${command}: ${stderr}`);
      // eslint-disable-next-line no-control-regex -- what must never reach the terminal raw
      assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(stdout), command);
      assert.ok(stdout.length < 2_000_000, `${command} printed ${stdout.length} characters`);
      assert.match(stdout, /Evil\\x1b\]0;pwned\\x07\\x1b\[2J/, command);
      assert.match(
        stdout,
        /X+…\[\+\d+ characters\]/,
        `${command}: the long name cut, the cut shown`,
      );
      for (const name of ['e-utf16', 'f-good'])
        assert.ok(stdout.includes(name), `${command}: ${name}`);
    }
  });
});
