/**
 * Three runs of a framework app at once through one proxy, none sending faultline's headers: the
 * OpenAI Agents SDK pricing team (examples/pricing-team/openai-agents.ts `--trace`) sends the W3C
 * `traceparent` an OpenTelemetry-instrumented client sends, one trace per app run, and the proxy
 * records three runs of five calls each, every call in the run of its own app.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startPricingModel } from '../examples/pricing-team/scripted-model.js';
import { startProxy } from '../src/recording/proxy/proxy.js';
import { Recorder } from '../src/recording/record/recorder.js';
import { recordingOf } from '../src/recording/record/recording.js';
import type { Trace } from '../src/trace/model.js';
import { ROOT } from './paths.js';
import type { WireServer } from './wire-server.js';

const exec = promisify(execFile);
const APP = join(ROOT, 'examples/pricing-team/openai-agents.ts');
const RUNS = 3;

let home: string;
let model: WireServer;
let traces: Trace[];

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'faultline-concurrent-'));
  model = await startPricingModel({ fault: true });
  const folder = join(home, 'runs');
  const recorder = new Recorder({ folder, flushMs: 5 });
  // The default run gap (30 s): idle gaps alone would make the three runs one.
  const proxy = await startProxy({ upstream: model.baseUrl, recorder, port: 0 });
  const environment: NodeJS.ProcessEnv = { ...process.env, OPENAI_BASE_URL: `${proxy.url}/v1` };
  delete environment.FAULTLINE_RUN;
  try {
    await Promise.all(
      Array.from({ length: RUNS }, (_, index) =>
        exec(
          process.execPath,
          [
            '--import',
            'tsx',
            APP,
            '--api',
            index % 2 ? 'chat' : 'responses',
            '--trace',
            '--out',
            join(home, `answer-${index}.json`),
          ],
          { env: environment, timeout: 60_000 },
        ),
      ),
    );
  } finally {
    await proxy.close();
    await recorder.close();
  }
  traces = readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as Trace);
});

after(async () => {
  await model?.close();
  rmSync(home, { recursive: true, force: true });
});

test('three concurrent runs without our headers record as three runs, by their trace ids', () => {
  assert.equal(traces.length, RUNS, traces.map((trace) => trace.id).join(', '));
  let calls = 0;
  for (const trace of traces) {
    const recorded = recordingOf(trace)!.calls;
    calls += recorded.length;
    assert.deepEqual(
      recorded.map((call) => call.agent),
      ['Coordinator', 'Researcher', 'Researcher', 'Analyst', 'Analyst'],
      trace.id,
    );
    // One app's calls: one API each (the runs alternate Responses and Chat Completions).
    assert.equal(new Set(recorded.map((call) => call.api)).size, 1, trace.id);
  }
  assert.equal(calls, model.requests.length, 'every call the upstream answered is recorded');
});
