/**
 * Collector span rows and Who&When Pro files through the command line (a child process, as a user
 * runs it): `inspect` shows their steps with span facts and labels, `attribute` names a step of
 * theirs, `eval` scores against their labels (agent, step, MAST modes).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runFaultline } from '../../test/run-cli.js';
import type { Trace } from '../trace/model.js';

const formats = 'src/trace/__fixtures__/formats';
const CLICKHOUSE = `${formats}/collector-rows-clickhouse.json`;
const NESTED = `${formats}/collector-rows-nested.json`;
const EACH_ROW = `${formats}/collector-rows-each-row.jsonl`;
const PRO = [`${formats}/whowhen-pro-run.json`, `${formats}/whowhen-pro-runs.jsonl`];

describe('collector rows and Who&When Pro on the command line', () => {
  let home = '';
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-formats-cli-'));
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const faultline = (...args: string[]) => runFaultline(args, { FAULTLINE_HOME: home });

  it('inspects span rows with each step’s span facts, and Pro runs with their labels', async () => {
    const [rows, pro] = await Promise.all([
      faultline('inspect', '--json', CLICKHOUSE),
      faultline('inspect', PRO[0]!),
    ]);
    assert.equal(rows.code, 0, rows.stderr);
    const trace = JSON.parse(rows.stdout) as Trace;
    assert.equal(trace.format, 'collector-rows');
    const tool = trace.steps.find((step) => step.role === 'tool')!;
    assert.equal(tool.error, 'charges service timed out after 1.5 s');
    assert.deepEqual(tool.span, {
      id: 'b000000000000006',
      parentId: 'b000000000000004',
      durationMs: 1500,
    });
    assert.equal(pro.code, 0, pro.stderr);
    assert.match(pro.stdout, /format who-and-when-pro/);
    assert.match(pro.stdout, /WebSurfer: 2\.3 Task derailment/);
  });

  it('attributes every trace of the span row files to one of its steps', async () => {
    const result = await faultline('attribute', '--json', CLICKHOUSE, NESTED, EACH_ROW);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { trace: string; agent: string; step: number });
    assert.deepEqual(
      lines.map((line) => line.trace),
      [CLICKHOUSE, NESTED, EACH_ROW, EACH_ROW],
    );
    for (const line of lines) {
      assert.ok(Number.isInteger(line.step) && line.step >= 0, JSON.stringify(line));
      assert.ok(line.agent, JSON.stringify(line));
    }
  });

  it('evaluates against Pro labels: agent, step and MAST modes', async () => {
    const out = join(home, 'eval.json');
    const result = await faultline('eval', ...PRO, '--fresh', '-o', out);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(await readFile(out, 'utf8')) as {
      records: { id: string; method: string; useGroundTruth: boolean; label: unknown }[];
      modes: { rows: { method: string; traces: number }[] };
    };
    const labels = Object.fromEntries(
      report.records
        .filter((record) => record.method === 'offline' && record.useGroundTruth)
        .map((record) => [record.id, record.label]),
    );
    assert.deepEqual(labels, {
      'wwp-gaia-0142': { agent: 'WebSurfer', step: 3 },
      'wwp-hotpot-0007': { agent: 'Verifier', step: 3 },
      'wwp-hotpot-0011': { agent: 'Researcher', step: 1 },
    });
    // Two of the three runs are labelled with modes.
    assert.equal(report.modes.rows.find((row) => row.method === 'offline')?.traces, 2);
  });

  it('refuses a span row without a span id in one line', async () => {
    const result = await faultline(
      'inspect',
      'src/trace/__fixtures__/negative/collector-rows-missing-span-id.json',
    );
    assert.equal(result.code, 2);
    assert.match(
      result.stderr.trim(),
      /^faultline: \S+collector-rows-missing-span-id\.json \(collector-rows\) at \[1\]: the row names no span id/,
    );
    assert.equal(result.stderr.trim().split('\n').length, 1);
  });
});
