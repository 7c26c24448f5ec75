import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  startScriptedModel,
  type ScriptedModel,
} from '../../../examples/agent-team/scripted-model.js';
import { ROOT } from '../../../test/paths.js';
import { getMethod } from '../../attribution/registry.js';
import { createModelClient } from '../../llm/client.js';
import { openDatabase, type Db } from '../../store/database.js';
import { Repository } from '../../store/repository.js';
import { RunStore } from '../../store/runs.js';
import { loadTraces } from '../../trace/load.js';
import type { Trace } from '../../trace/model.js';
import { startProxy } from '../proxy/proxy.js';
import { Recorder } from '../record/recorder.js';
import { recordingOf } from '../record/recording.js';
import { replay } from './replay.js';
import { candidateSteps, describeVerification, verify } from './verify.js';

const exec = promisify(execFile);
const TSX = `"${process.execPath}" --import tsx`;
const TEAM = join(ROOT, 'examples/agent-team');

/** A failing run of the example team, recorded through the proxy: the coder's code is off by one. */
interface Recorded {
  home: string;
  model: ScriptedModel;
  db: Db;
  runs: RunStore;
  trace: Trace;
  file: string;
  runCommand: (task?: string) => string;
  checkCommand: string;
  settings: () => {
    run: string;
    check: string;
    upstream: string;
    folder: string;
    store: RunStore;
    timeoutMs: number;
  };
}

let recorded: Recorded;
const previousHome = process.env.FAULTLINE_HOME;

before(async () => {
  const home = mkdtempSync(join(tmpdir(), 'faultline-replay-'));
  process.env.FAULTLINE_HOME = home;
  const model = await startScriptedModel({ fault: 'coder' });
  const db = await openDatabase(join(home, 'faultline.db'));
  const runs = new RunStore(db);
  const folder = join(home, 'runs');
  const answer = join(home, 'answer.json');
  const runCommand = (task = 'arith-1') =>
    `${TSX} "${join(TEAM, 'team.ts')}" --task ${task} --out "${answer}"`;
  const checkCommand = `${TSX} "${join(TEAM, 'check.ts')}" --task arith-1 --answer "${answer}"`;

  const recorder = new Recorder({ folder, store: runs });
  const proxy = await startProxy({ upstream: model.baseUrl, recorder, port: 0 });
  const environment = {
    ...process.env,
    OPENAI_BASE_URL: `${proxy.url}/v1`,
    FAULTLINE_RUN: 'team-1',
  };
  await exec('sh', ['-c', runCommand()], { env: environment });
  await assert.rejects(exec('sh', ['-c', checkCommand]), 'the recorded run fails its check');
  await recorder.setOutcome('team-1', 'failure');
  await proxy.close();
  const file = join(folder, 'team-1.json');
  const trace = JSON.parse(readFileSync(file, 'utf8')) as Trace;
  recorded = {
    home,
    model,
    db,
    runs,
    trace: { ...trace, source: file },
    file,
    runCommand,
    checkCommand,
    settings: () => ({
      run: runCommand(),
      check: checkCommand,
      upstream: model.baseUrl,
      folder,
      store: runs,
      timeoutMs: 60_000,
    }),
  };
});

after(async () => {
  await recorded?.model.close();
  await recorded?.db.close();
  if (previousHome === undefined) delete process.env.FAULTLINE_HOME;
  else process.env.FAULTLINE_HOME = previousHome;
  if (recorded) rmSync(recorded.home, { recursive: true, force: true });
});

/** The coder's code as it should have been. */
const rightCode = {
  text: '',
  toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ code: '17 * 23 + 5' }) }],
};

/** The flags that run the example team and its check, with the scripted model as the upstream. */
const systemFlags = () => [
  '--run',
  recorded.runCommand(),
  '--check',
  recorded.checkCommand,
  '--upstream',
  recorded.model.baseUrl,
];

/** Runs the faultline command in the recorded run's home; resolves with its output. */
function faultline(args: string[], env: Record<string, string> = {}) {
  return exec(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/index.ts'), ...args], {
    env: { ...process.env, FAULTLINE_HOME: recorded.home, ...env },
  });
}

describe('a recorded run of the example team', () => {
  test('reads as planner, coder (run_code), the tool, coder, reviewer', () => {
    assert.deepEqual(
      recorded.trace.steps.map((step) => [step.speaker, step.role]),
      [
        ['planner', 'agent'],
        ['coder', 'agent'],
        ['run_code', 'tool'],
        ['coder', 'agent'],
        ['reviewer', 'agent'],
      ],
    );
    assert.equal(recorded.trace.steps[1]!.content, 'run_code({"code":"17 * 23 + 5 + 1"})');
    assert.equal(recorded.trace.steps[2]!.content, '397');
    assert.equal(recorded.trace.outcome, 'failure');
    assert.deepEqual(
      recordingOf(recorded.trace)!.calls.map((call) => call.step),
      [0, 1, 3, 4],
    );
  });
});

describe('replay', () => {
  test('the right fix at the decisive step flips the outcome', async () => {
    const result = await replay({
      ...recorded.settings(),
      trace: recorded.trace,
      step: 1,
      fix: rightCode,
    });
    assert.equal(result.flipped, true);
    assert.equal(result.agent, 'coder');
    assert.deepEqual(result.calls, { recording: 1, fix: 1, upstream: 2 });
    const replayed = JSON.parse(readFileSync(result.run, 'utf8')) as Trace;
    assert.equal(replayed.outcome, 'success');
    assert.equal(replayed.steps[2]!.content, '396', 'the fixed code ran');
    assert.deepEqual(
      recordingOf(replayed)!.calls.map((call) => call.answeredBy),
      ['recording', 'fix', 'upstream', 'upstream'],
    );
    assert.equal(
      (await recorded.runs.get(result.runId))?.outcome,
      'success',
      'the replayed run is on the page',
    );
  });

  test('a fix at an irrelevant step does not flip it', async () => {
    const plan = recorded.trace.steps[0]!.content;
    const seen = join(recorded.home, 'run-environment.txt');
    const result = await replay({
      ...recorded.settings(),
      // The run command also notes the base URLs it was given.
      run: `printf '%s\\n%s\\n' "$OPENAI_BASE_URL" "$ANTHROPIC_BASE_URL" > "${seen}" && ${recorded.runCommand()}`,
      trace: recorded.trace,
      step: 0,
      fix: { text: plan },
    });
    assert.equal(result.flipped, false);
    assert.equal(result.passed, false);
    const [openai, anthropic] = readFileSync(seen, 'utf8').split('\n');
    assert.match(openai!, /^http:\/\/127\.0\.0\.1:\d+\/v1$/, 'OPENAI_BASE_URL, with /v1');
    assert.equal(anthropic, openai!.replace(/\/v1$/, ''), 'ANTHROPIC_BASE_URL, the same proxy');
  });

  test('a run that diverges from the recording gets a clear error', async () => {
    await assert.rejects(
      replay({
        ...recorded.settings(),
        run: recorded.runCommand('arith-2'),
        trace: recorded.trace,
        step: 1,
        fix: rightCode,
      }),
      // Which message differs, and its first differing words on each side.
      /the replay diverged from the recording of team-1: planner's 1st call \(step 0\) asked something else than when recorded: its message 1 of 1 \(user\) differs: the recording has "…17 \* 23 \+ 5\?", now "…\(120 - 45\) \/ 5 \* 3\?"/,
    );
  });

  test('a step that is not a model call is refused, naming the ones that are', async () => {
    await assert.rejects(
      replay({ ...recorded.settings(), trace: recorded.trace, step: 2, fix: { text: '396' } }),
      /step 2 is not a model call, so it cannot be replayed with a fix; choose one of steps 0, 1, 3, 4/,
    );
  });

  test('the command prints {"step", "agent", "flipped", "run"}', async () => {
    const { stdout } = await faultline([
      'replay',
      recorded.file,
      '--step',
      '1',
      '--fix',
      JSON.stringify({ toolCalls: [{ name: 'run_code', arguments: { code: '17 * 23 + 5' } }] }),
      ...systemFlags(),
    ]);
    const output = JSON.parse(stdout) as {
      step: number;
      agent: string;
      flipped: boolean;
      run: string;
    };
    assert.deepEqual([output.step, output.agent, output.flipped], [1, 'coder', true]);
    assert.match(output.run, /team-1-replay-1-[0-9a-f]+\.json$/);
  });

  test('the command has a model write the fix with --fix-model', async () => {
    const { stdout } = await faultline(
      [
        'replay',
        recorded.file,
        '--step',
        '1',
        '--fix-model',
        'openai:scripted',
        '--fix-base-url',
        recorded.model.baseUrl,
        ...systemFlags(),
      ],
      { OPENAI_API_KEY: 'scripted' },
    );
    const output = JSON.parse(stdout) as {
      step: number;
      agent: string;
      flipped: boolean;
      fix: { toolCalls?: { name: string }[] };
    };
    assert.deepEqual([output.step, output.agent, output.flipped], [1, 'coder', true]);
    assert.deepEqual(
      output.fix.toolCalls?.map((call) => call.name),
      ['run_code'],
      'the fix the model wrote',
    );
  });
});

describe('verify', () => {
  test('finds the decisive step with fixes a model writes, and says how many replays it used', async () => {
    const attribution = await getMethod('offline').attribute(recorded.trace);
    const order = candidateSteps(attribution, new Set([0, 1, 3, 4]), 4).map(
      (candidate) => candidate.step,
    );
    const fixWriter = createModelClient({
      model: 'openai:scripted',
      baseUrl: recorded.model.baseUrl,
      apiKey: 'scripted',
      cache: false,
    });
    const found = await verify({
      ...recorded.settings(),
      trace: recorded.trace,
      attribution,
      fixWriter,
      top: 4,
    });
    assert.equal(found.verified?.step, 1);
    assert.equal(found.verified?.agent, 'coder');
    // The planner's step 0, the one model call before step 1, is ranked before it and did not flip.
    assert.ok(order.indexOf(0) < order.indexOf(1));
    assert.equal(found.verified?.earlierAllTried, true);
    assert.equal(found.replays, order.indexOf(1) + 1);
    assert.deepEqual(
      found.attempts.map((attempt) => attempt.step),
      order.slice(0, order.indexOf(1) + 1),
    );
  });

  test('reports "none flipped" when no candidate within the budget flips', async () => {
    // The decisive step is the second candidate, but --budget 1 stops before it.
    const attribution = {
      ...(await getMethod('offline').attribute(recorded.trace)),
      step: 4,
      agent: 'reviewer',
      candidates: [
        { step: 4, agent: 'reviewer', score: 0.9 },
        { step: 1, agent: 'coder', score: 0.5 },
      ],
    };
    const fixWriter = createModelClient({
      model: 'openai:scripted',
      baseUrl: recorded.model.baseUrl,
      apiKey: 'scripted',
      cache: false,
    });
    const found = await verify({
      ...recorded.settings(),
      trace: recorded.trace,
      attribution,
      fixWriter,
      top: 2,
      budget: 1,
    });
    assert.equal(found.verified, null);
    assert.equal(found.replays, 1);
    assert.deepEqual(
      found.attempts.map((attempt) => attempt.step),
      [4],
    );
    assert.ok(found.untried?.includes(1), `untried: ${found.untried}`);
    assert.match(
      describeVerification(found),
      /^not verified: no flip in 1 replay \(step 4, of the top 2 candidate steps\); steps? [\d, ]+ not tried \(the budget ran out; raise --budget to try them\)$/,
    );
  });

  test('the command marks the verified step, stores it as the label and on the page', async () => {
    const { stdout } = await faultline(
      [
        'verify',
        recorded.file,
        '--top',
        '4',
        '--fix-model',
        'openai:scripted',
        '--fix-base-url',
        recorded.model.baseUrl,
        ...systemFlags(),
        '--label',
        '--json',
      ],
      { OPENAI_API_KEY: 'scripted' },
    );
    const output = JSON.parse(stdout) as {
      step: number;
      agent: string;
      verified: { step: number; replays: number; run: string; earlierAllTried: boolean };
      replays: number;
      earlier: { steps: number[]; untried: number[] };
      summary: string;
    };
    assert.deepEqual([output.step, output.agent, output.verified.step], [1, 'coder', 1]);
    assert.equal(output.replays, output.verified.replays);
    assert.equal(output.verified.earlierAllTried, true);
    assert.deepEqual([output.earlier.steps, output.earlier.untried], [[0], []]);
    assert.match(
      output.summary,
      /fixes at the one earlier model call were tried and none flipped it$/,
    );
    assert.match(
      output.summary,
      new RegExp(
        `^verified: step 1 \\(coder\\) is decisive: .* \\(${output.replays} replays? used; `,
      ),
    );
    const labelled = JSON.parse(readFileSync(recorded.file, 'utf8')) as Trace;
    assert.deepEqual([labelled.labels?.agent, labelled.labels?.step], ['coder', 1]);
    // The proof travels with the label, for the combined verdict to state it as proved.
    const proof = { run: output.verified.run, replays: output.replays };
    assert.deepEqual(labelled.labels?.proof, proof);
    assert.deepEqual((await loadTraces(recorded.file))[0]!.labels?.proof, proof);
    const repository = new Repository(recorded.db);
    const traceId = (await recorded.runs.get('team-1'))!.traceId;
    const stored = (await repository.getTrace(traceId))!.labels;
    assert.deepEqual([stored?.byUser, stored?.proof], [true, proof]);
    const [analysis] = (await repository.listAnalyses({ traceId })).items;
    assert.equal(analysis?.result.verified?.step, 1);
    assert.equal(analysis?.result.verified?.earlierAllTried, true);
  });
});
