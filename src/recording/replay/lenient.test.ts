/**
 * Replay of a system whose agents are named by a fingerprint of instructions that hold the time
 * (src/recording/__fixtures__/clock-team.ts): every run names them anew, so only --lenient, which
 * matches such agents by role and order, can replay it; without it the divergence says what
 * differs (the instructions, from the time on).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startHarness, type Harness } from '../../../test/recording-harness.js';
import { ROOT } from '../../../test/paths.js';
import type { Trace } from '../../trace/model.js';
import { recordingOf } from '../record/recording.js';
import { replay } from './replay.js';

const exec = promisify(execFile);
const SYSTEM = join(ROOT, 'src/recording/__fixtures__/clock-team.ts');

let harness: Harness;
let trace: Trace;

/** Runs the system through the proxy as run `id`, a failure; its trace. */
async function record(run: string, id: string, environment: Record<string, string> = {}) {
  await exec('sh', ['-c', run], {
    env: {
      ...process.env,
      ...environment,
      OPENAI_BASE_URL: `${harness.proxy.url}/v1`,
      FAULTLINE_RUN: id,
    },
  });
  await harness.recorder.setOutcome(id, 'failure');
  const file = join(harness.runsFolder, `${id}.json`);
  return { ...(JSON.parse(readFileSync(file, 'utf8')) as Trace), source: file };
}
let settings: { run: string; check: string; upstream: string; folder: string; timeoutMs: number };

before(async () => {
  // The researcher says 15.00 where the price is 12.50; the analyst echoes what it is given.
  harness = await startHarness((request) => {
    const messages = request.body.messages as { role: string; content: string }[];
    const user = messages.at(-1)!.content;
    const price = /Price: (\d+(?:\.\d+)?)/.exec(user)?.[1];
    return {
      text: user === 'Widgets?' ? '15.00' : `Total: ${(Number(price) * 3).toFixed(2)}`,
      toolCalls: [],
    };
  });
  const answer = join(harness.home, 'answer.txt');
  const run = `"${process.execPath}" --import tsx "${SYSTEM}" --out "${answer}"`;
  trace = await record(run, 'clock-1');
  settings = {
    run,
    check: `grep -q "37.50" "${answer}"`,
    upstream: harness.upstream.baseUrl,
    folder: harness.runsFolder,
    timeoutMs: 60_000,
  };
});

after(async () => harness?.close());

test('the agents are named by fingerprints of their instructions', () => {
  const calls = recordingOf(trace)!.calls;
  assert.deepEqual(
    calls.map((call) => [call.step, call.agentSource]),
    [
      [0, 'fingerprint'],
      [1, 'fingerprint'],
    ],
  );
});

test('without --lenient, a fingerprint-named agent the recording lacks is reported with the remedy', async () => {
  await assert.rejects(
    replay({ ...settings, trace, step: 0, fix: { text: '12.50' } }),
    /agent-[0-9a-f]{8} made a 1st call, which the recording does not have before step 0 .*--lenient matches the agent by its role and order/,
  );
});

test('--lenient matches fingerprint-named agents by role and order, and the fix flips the run', async () => {
  const result = await replay({
    ...settings,
    trace,
    step: 0,
    fix: { text: '12.50' },
    lenient: true,
  });
  assert.equal(result.flipped, true, JSON.stringify(result));
  assert.deepEqual(result.calls, { recording: 0, fix: 1, upstream: 1 });
  const fixedLater = await replay({
    ...settings,
    trace,
    step: 1,
    fix: { text: 'Total: 37.50' },
    lenient: true,
  });
  assert.equal(fixedLater.flipped, true);
  assert.deepEqual(fixedLater.calls, { recording: 1, fix: 1, upstream: 0 });
});

test('a divergence names what differs: the instructions, from the first differing words on', async () => {
  // Named by a header, the agents keep their names; only their instructions (the time) differ.
  const named = await record(settings.run, 'clock-named', { CLOCK_TEAM_NAMED: '1' });
  const recorded = recordingOf(named)!.calls[0]!.request.instructions!;
  const stamp = /Current time: (\S+)\./.exec(recorded)![1]!;
  await assert.rejects(
    replay({
      ...settings,
      run: `CLOCK_TEAM_NAMED=1 ${settings.run}`,
      trace: named,
      step: 1,
      fix: { text: 'Total: 37.50' },
    }),
    (error: Error) => {
      assert.match(
        error.message,
        /researcher's 1st call \(step 0\) asked something else than when recorded: its instructions differ: the recording has "…(\S+) Find the unit price of the item asked about\.", now "…(\S+) Find the unit price of the item asked about\."/,
      );
      assert.ok(error.message.includes(`the recording has "…${stamp}. Find`), error.message);
      return true;
    },
  );
});
