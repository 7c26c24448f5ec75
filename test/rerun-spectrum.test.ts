/**
 * The loop of many runs on the pricing team (examples/pricing-team, OpenAI Agents SDK): its
 * scripted model errs at random, seeded (seed 5: the researcher misreports on 9 of 20 runs, the
 * analyst leaves the fee out on 4 others, 7 pass); `faultline rerun -n 20` runs the team through
 * the proxy with a check, and `faultline spectrum` over the runs names the researcher's misreport
 * first and the analyst's calculation second, each at its step. About a minute: twenty runs of a
 * framework app.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startPricingModel } from '../examples/pricing-team/scripted-model.js';
import { ROOT } from './paths.js';
import type { WireServer } from './wire-server.js';

const exec = promisify(execFile);
const CLI = join(ROOT, 'src/cli/index.ts');

const faultline = (...args: string[]) =>
  exec(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });

interface Spectrum {
  runs: { failing: number; passing: number };
  departures: { agent: string; unit: string; runs: number; step: number }[];
  units: { agent: string; failingRuns: number; passingRuns: number }[];
  verdict: { agent: string; step: number } | null;
}

describe('rerun, then spectrum, on the pricing team with random mistakes', () => {
  let model: WireServer;
  let home = '';
  before(async () => {
    model = await startPricingModel({ errors: { seed: 5 } });
    home = mkdtempSync(join(tmpdir(), 'faultline-rerun-'));
  });
  after(async () => {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('names the most frequent mistake first and the other second, each at its step', async () => {
    const runs = join(home, 'runs');
    const answer = join(home, 'answer-$FAULTLINE_RERUN_RUN.json');
    const rerun = await faultline(
      'rerun',
      '-n',
      '20',
      '--concurrency',
      '4',
      '--no-store',
      '--out',
      runs,
      '--upstream',
      model.baseUrl,
      '--run',
      `"${process.execPath}" --import tsx examples/pricing-team/openai-agents.ts --api chat --out "${answer}"`,
      '--check',
      `grep -q "TOTAL: 41.50 USD" "${answer}"`,
    );
    // gpt-4o-mini's list price for the scripted model's 11 + 7 tokens a call.
    assert.match(
      rerun.stdout,
      /^20 of 20 runs in .*: 13 failed, 7 passed, 100 model calls, \$0\.0006 estimated/,
    );
    assert.equal(readdirSync(runs).length, 20);
    assert.match(
      rerun.stderr,
      /\[#{20}\] 20\/20 run \d+: (passed|failed), 5 calls, \$0\.0000 \(total \$0\.0006\)/,
    );

    const { stdout } = await faultline('spectrum', runs, '--json');
    const result = JSON.parse(stdout) as Spectrum;
    assert.deepEqual(result.runs, { failing: 13, passing: 7, unknown: 0 });
    assert.deepEqual(
      result.departures.map(({ agent, runs: count, step }) => ({ agent, runs: count, step })),
      [
        { agent: 'Researcher', runs: 9, step: 4 },
        { agent: 'Analyst', runs: 4, step: 6 },
      ],
    );
    assert.match(result.departures[0]!.unit, /#15/);
    assert.match(result.departures[1]!.unit, /calculate\(\{"expression":"#\*#"\}\)/);
    assert.equal(result.units[0]!.agent, 'Researcher');
    assert.deepEqual([result.units[0]!.failingRuns, result.units[0]!.passingRuns], [9, 0]);
    assert.ok(result.verdict?.agent === 'Researcher' || result.verdict?.agent === 'Analyst');
  });
});
