/**
 * The checks every framework's own OpenTelemetry instrumentation passes (ai-sdk-telemetry.test.ts
 * and the others): the pricing team (examples/pricing-team) runs against its scripted model,
 * exporting with the real OTLP/HTTP exporter through a tap (otlp-tap.ts) into the receiver of a
 * running faultline server (`--otlp-port`). Each app run must become one stored run, every model
 * call a step by the agent the framework names, tool results as text, no error step, the run
 * marked failed by the app and attributed with the researcher's misreport in the verdict's top 3;
 * and the spans as received, read offline from a file, must give the same steps and verdict. With
 * UPDATE_GOLDEN=1 the first variant's spans are saved as the format's fixture.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { startPricingModel } from '../examples/pricing-team/scripted-model.js';
import { getMethod } from '../src/attribution/registry.js';
import type { Attribution } from '../src/attribution/method.js';
import { candidateSteps } from '../src/recording/replay/verify.js';
import { startServer } from '../src/server/serve.js';
import { importRawInput } from '../src/trace/load.js';
import type { Trace } from '../src/trace/model.js';
import { eventually } from './eventually.js';
import { startOtlpTap, type OtlpTap } from './otlp-tap.js';
import { FIXTURES, ROOT } from './paths.js';
import { reportStep } from './pricing-team.js';
import type { WireServer } from './wire-server.js';

const exec = promisify(execFile);

/** A framework's app, how it is run, and what its runs must read as. */
export interface TelemetryCase {
  framework: string;
  /** The app under examples/pricing-team. */
  app: string;
  /** Each variant's name and the app's arguments. */
  variants: { name: string; args: string[] }[];
  /** The format the spans must be read with. */
  format: string;
  /** The agent of each model call, in order, as the framework names them. */
  calls: string[];
  researcher: string;
  /** The fixture file the first variant's spans are saved as (under __fixtures__/formats). */
  fixture: string;
  /** Variables the app runs with besides the endpoints'. */
  env?: Record<string, string>;
}

/** One variant's run: what the tap saw and what the server stored. */
interface TeamRun {
  name: string;
  traceIds: string[];
  document: { resourceSpans: unknown[] };
  trace: Trace;
  /** The trace's id in the store. */
  storedId: string;
  /** Model calls the scripted model answered for this run. */
  modelCalls: number;
}

/** The trace ids of an OTLP/JSON document's spans. */
function traceIdsOf(document: { resourceSpans: unknown[] }): string[] {
  const ids = new Set<string>();
  for (const resource of document.resourceSpans as { scopeSpans?: { spans?: unknown[] }[] }[])
    for (const scope of resource.scopeSpans ?? [])
      for (const span of (scope.spans ?? []) as { traceId?: string }[])
        if (span.traceId) ids.add(span.traceId.toLowerCase());
  return [...ids];
}

const modelCallSteps = (trace: Trace) =>
  new Set(
    trace.steps.filter((step) => step.role === 'agent' && step.span).map((step) => step.index),
  );

const top3 = (attribution: Attribution, trace: Trace) =>
  candidateSteps(attribution, modelCallSteps(trace), 3).map((each) => each.step);

/** Registers the framework's tests. */
export function describeTelemetryTeam(spec: TelemetryCase): void {
  let home = '';
  let server: Awaited<ReturnType<typeof startServer>>;
  const runs: TeamRun[] = [];
  const api = async <Body>(path: string) => {
    const response = await fetch(new URL(path, server.state.url));
    return { status: response.status, body: (await response.json()) as Body };
  };

  /** Runs one variant of the app with its own scripted model and tap, sequentially. */
  async function runVariant(variant: TelemetryCase['variants'][number]): Promise<TeamRun> {
    const model: WireServer = await startPricingModel({ fault: true });
    const tap: OtlpTap = await startOtlpTap(server.state.otlpUrl!);
    try {
      const script = join(ROOT, 'examples/pricing-team', spec.app);
      await exec(
        process.execPath,
        ['--import', 'tsx', script, ...variant.args, '--out', join(home, `${variant.name}.json`)],
        {
          cwd: ROOT,
          timeout: 90_000,
          env: {
            ...process.env,
            OPENAI_BASE_URL: model.baseUrl,
            OTEL_EXPORTER_OTLP_ENDPOINT: tap.endpoint,
            OTEL_SERVICE_NAME: `pricing-team-${variant.name}`,
            ...spec.env,
          },
        },
      );
      const document = tap.document();
      const traceIds = traceIdsOf(document);
      const traceId = traceIds[0]!;
      const stored = await eventually(async () => {
        const { status, body } = await api<{ run: { traceId: string } }>(`/api/runs/${traceId}`);
        return status === 200 ? body.run : undefined;
      }, 60);
      const { body } = await api<{ trace: Trace }>(`/api/traces/${stored.traceId}`);
      return {
        name: variant.name,
        traceIds,
        document,
        trace: body.trace,
        storedId: stored.traceId,
        modelCalls: model.requests.length,
      };
    } finally {
      await tap.close();
      await model.close();
    }
  }

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'faultline-telemetry-'));
    server = await startServer({
      home,
      host: '127.0.0.1',
      port: 0,
      otlpPort: 0,
      workers: 1,
      live: { quietMs: 300 },
    });
    for (const variant of spec.variants) runs.push(await runVariant(variant));
    if (process.env.UPDATE_GOLDEN)
      writeFileSync(
        join(FIXTURES, 'formats', spec.fixture),
        JSON.stringify(runs[0]!.document, null, 1) + '\n',
      );
  });
  after(async () => {
    await server?.stop();
    if (process.env.DEBUG_TELEMETRY) console.log(readFileSync(join(home, 'server.log'), 'utf8'));
    if (home) rmSync(home, { recursive: true, force: true });
  });

  describe(`${spec.framework}: its own spans through OTLP into the receiver`, () => {
    test('one run per app run; every model call a step, by the agent the framework names', () => {
      for (const run of runs) {
        assert.equal(run.traceIds.length, 1, `${run.name}: one trace`);
        assert.equal(run.trace.format, spec.format, run.name);
        const calls = run.trace.steps.filter((step) => step.role === 'agent' && step.span);
        assert.equal(calls.length, run.modelCalls, `${run.name}: a step per model call`);
        assert.deepEqual(
          calls.map((step) => step.agent),
          spec.calls,
          `${run.name}: agents`,
        );
        assert.equal(run.trace.steps[0]?.role, 'human', `${run.name}: the question first`);
      }
    });

    test('replies and tool results as text; no error step', () => {
      for (const run of runs) {
        for (const step of run.trace.steps) {
          assert.doesNotMatch(
            step.content,
            /^\s*[[{]"?/,
            `${run.name}: step ${step.index} is JSON`,
          );
          assert.ok(!step.error, `${run.name}: step ${step.index} failed: ${step.error}`);
        }
        const tool = (name: string) =>
          run.trace.steps.find((step) => step.role === 'tool' && step.agent === name);
        assert.match(tool('lookup_price')?.content ?? '', /(^|\n)12\.5$/, run.name);
        assert.match(tool('calculate')?.content ?? '', /(^|\n)49$/, run.name);
      }
    });

    test("the run is marked failed and attributed, the researcher's misreport in the top 3", async () => {
      for (const run of runs) {
        assert.equal(run.trace.outcome, 'failure', run.name);
        const analyses = await eventually(async () => {
          const { body } = await api<{ analyses: { method: string; result: Attribution }[] }>(
            `/api/analyses?trace=${run.storedId}`,
          );
          return body.analyses.length > 0 ? body.analyses : undefined;
        }, 60);
        const verdict = analyses.find((analysis) => analysis.method === 'offline')!.result;
        const step = reportStep(run.trace);
        assert.equal(run.trace.steps[step]!.agent, spec.researcher);
        assert.ok(
          top3(verdict, run.trace).includes(step),
          `${run.name}: top 3 ${top3(verdict, run.trace)}`,
        );
      }
    });

    test('read offline from the spans received, the same steps and verdict', async () => {
      for (const run of runs) {
        const [offline] = await importRawInput(
          { kind: 'json', value: run.document },
          { file: `${run.name}.json`, id: run.name },
        );
        const shape = (trace: Trace) =>
          trace.steps.map((step) => [step.agent, step.role, step.content]);
        assert.deepEqual(shape(offline!), shape(run.trace), run.name);
        assert.equal(offline!.outcome, 'failure');
        const method = getMethod('offline');
        const [live, file] = await Promise.all([
          method.attribute(run.trace),
          method.attribute(offline!),
        ]);
        assert.deepEqual([file.agent, file.step], [live.agent, live.step], run.name);
      }
    });
  });
}
