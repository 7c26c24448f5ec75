/**
 * The checks every framework's pricing team passes (openai-agents.test.ts, langgraph.test.ts):
 * one run per app run, every model call a step, agents named as the framework names them, the
 * researcher's misreport blamed or in the offline attribution's top 3, a replay with it fixed
 * flipping the outcome where a replay of another step as recorded does not, verify proving it, and
 * an injected misreport labelled at the researcher's step.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getMethod } from '../src/attribution/registry.js';
import { createModelClient } from '../src/llm/client.js';
import { runCampaign } from '../src/recording/inject/campaign.js';
import { PlanInjector } from '../src/recording/inject/injector.js';
import { recordingOf } from '../src/recording/record/recording.js';
import { Recorder } from '../src/recording/record/recorder.js';
import { replay } from '../src/recording/replay/replay.js';
import { candidateSteps, verify } from '../src/recording/replay/verify.js';
import type { Trace } from '../src/trace/model.js';
import {
  reportStep,
  startPricingTeam,
  VARIANTS,
  variantName,
  type PricingTeam,
  type RecordedRun,
  type Variant,
} from './pricing-team.js';

/** A framework's team and the names it gives its agents. */
export interface FrameworkCase {
  framework: string;
  /** The app under examples/pricing-team. */
  app: string;
  /** The agent of each model call, in order, as the framework names them. */
  calls: string[];
  researcher: string;
  /** The variants the app is run in (default: both APIs, streamed and not). */
  variants?: readonly Variant[];
}

const callSteps = (trace: Trace) =>
  new Set(
    recordingOf(trace)!.calls.flatMap((call) => (call.step === undefined ? [] : [call.step])),
  );

/** Registers the framework's tests. */
export function describeFramework(spec: FrameworkCase): void {
  let team: PricingTeam;
  const recorded = new Map<string, RecordedRun>();
  let upstreamCalls = 0;
  const variants = spec.variants ?? VARIANTS;
  /** The `index`th variant's run, counted from the end when there are fewer than four. */
  const variantAt = (index: number) => variants[Math.min(index, variants.length - 1)]!;
  const run = (index: number) => recorded.get(variantName(variantAt(index)))!;

  before(async () => {
    team = await startPricingTeam(spec.app);
    // The four variants at once: each has its own proxy, and the model answers from the request.
    const runs = await Promise.all(variants.map((variant) => team.record(variant)));
    upstreamCalls = team.model.requests.length;
    for (const each of runs) recorded.set(variantName(each.variant), each);
  });
  after(() => team?.close());

  const settings = (variant: RecordedRun) => ({
    run: team.runCommand(variant.variant),
    check: team.checkCommand(variant.variant),
    upstream: team.model.baseUrl,
    store: team.runs,
    timeoutMs: 60_000,
  });

  describe(`${spec.framework} through the proxy (${variants.map(variantName).join(', ')})`, () => {
    test('one run per app run; every model call a step, by the agent the framework names', () => {
      let recordedCalls = 0;
      for (const { variant, trace, runFiles, passed } of recorded.values()) {
        const name = variantName(variant);
        assert.equal(runFiles.length, 1, `${name}: one run`);
        assert.equal(passed, false, `${name}: the misreport fails the check`);
        const calls = recordingOf(trace)!.calls;
        recordedCalls += calls.length;
        assert.deepEqual(
          calls.map((call) => call.agent),
          spec.calls,
          `${name}: agents`,
        );
        for (const call of calls) {
          assert.notEqual(call.agentSource, 'fingerprint', name);
          assert.equal(
            trace.steps[call.step!]?.agent,
            call.agent,
            `${name}: call ${call.call}'s step`,
          );
        }
        assert.equal(trace.outcome, 'failure', name);
        const tools = trace.steps
          .filter((step) => step.role === 'tool')
          .map((step) => step.speaker);
        assert.ok(
          tools.includes('lookup_price') && tools.includes('calculate'),
          `${name}: ${tools}`,
        );
      }
      assert.equal(recordedCalls, upstreamCalls, 'every call the upstream answered is recorded');
    });

    test("the offline attribution ranks the researcher's misreport in its top 3, and first where the run shows the price it contradicts", async () => {
      for (const { variant, trace } of recorded.values()) {
        const attribution = await getMethod('offline').attribute(trace);
        const top = candidateSteps(attribution, callSteps(trace), 3).map((each) => each.step);
        const report = reportStep(trace);
        assert.ok(top.includes(report), `${variantName(variant)}: top 3 ${top}`);
        assert.equal(trace.steps[report]!.agent, spec.researcher);
        const looked = trace.steps.some(
          (step) => step.index < report && step.role === 'tool' && step.speaker === 'lookup_price',
        );
        if (looked)
          assert.equal(attribution.step, report, `${variantName(variant)}: ${attribution.reason}`);
      }
    });

    test('a replay with the misreport fixed flips the outcome, in every variant', async () => {
      const results = await Promise.all(
        [...recorded.values()].map(async (each) => {
          const step = reportStep(each.trace);
          const recordedStep = each.trace.steps[step]!;
          const fix = { text: 'unit price: 12.50 USD', toolCalls: recordedStep.toolCalls ?? [] };
          return replay({ ...settings(each), trace: each.trace, step, fix });
        }),
      );
      for (const result of results) {
        assert.equal(result.flipped, true, `step ${result.step} (${result.agent})`);
        assert.equal(result.agent, spec.researcher);
      }
    });

    test('a replay of another step as recorded does not flip it', async () => {
      const each = run(1);
      const first = each.trace.steps[0]!;
      assert.equal(first.role, 'agent');
      const fix = {
        text: first.toolCalls?.length ? '' : first.content,
        toolCalls: first.toolCalls ?? [],
      };
      const result = await replay({ ...settings(each), trace: each.trace, step: 0, fix });
      assert.equal(result.flipped, false);
    });

    test('verify proves the misreport decisive, the scripted model writing the fixes', async () => {
      const each = run(3);
      const fixWriter = createModelClient({
        model: 'openai:scripted',
        baseUrl: team.model.baseUrl,
        apiKey: 'scripted',
        cache: false,
      });
      const attribution = await getMethod('offline').attribute(each.trace);
      const found = await verify({
        ...settings(each),
        trace: each.trace,
        attribution,
        fixWriter,
        top: 3,
      });
      assert.equal(found.verified?.step, reportStep(each.trace), JSON.stringify(found.attempts));
      assert.equal(found.verified?.agent, spec.researcher);
    });

    test("an injected misreport is labelled at the researcher's report", async () => {
      const injector = new PlanInjector({
        plan: {
          targets: [
            {
              agent: spec.researcher,
              occurrence: 2,
              strategy: 'response-corruption',
              mode: '2.6',
              operator: 'perturb-number',
              delta: 2.5,
            },
          ],
        },
      });
      const injected = await team.record(variantAt(1), {
        upstream: team.clean,
        injector,
        recorder: (folder) =>
          new Recorder({ folder, store: team.runs, decorate: (trace) => injector.decorate(trace) }),
      });
      assert.equal(injected.passed, false, 'the injected misreport fails the check');
      const step = reportStep(injected.trace);
      assert.match(injected.trace.steps[step]!.content, /unit price: 15(?:\.00?)? USD/);
      assert.deepEqual(
        [injected.trace.labels?.agent, injected.trace.labels?.step],
        [spec.researcher, step],
      );
    });

    test('an inject campaign (concurrency 2, the app sending no run header) labels each kept run at its injected step', async () => {
      const out = join(team.home, 'injected');
      const summary = await runCampaign({
        run: team.runCommand(variantAt(1)).replace(/--out "[^"]+"/, '--out {work}/answer.json'),
        check: team
          .checkCommand(variantAt(1))
          .replace(/--answer "[^"]+"/, '--answer {work}/answer.json'),
        tasks: [{ id: 'widgets', json: '{"id": "widgets"}', value: { id: 'widgets' } }],
        plans: 3,
        modes: ['2.6', '3.2', '1.3'],
        out,
        upstream: team.clean.baseUrl,
        seed: 7,
        concurrency: 2,
        timeoutMs: 60_000,
      });
      assert.equal(summary.kept + summary.discarded, 3);
      assert.ok(summary.kept > 0, JSON.stringify(summary.byReason));
      const folder = join(out, 'runs');
      const kept = (existsSync(folder) ? readdirSync(folder) : [])
        .map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as Trace)
        .filter((trace) => trace.labels?.step !== undefined);
      assert.equal(kept.length, summary.kept);
      for (const trace of kept) {
        const { agent, step } = trace.labels!;
        assert.ok(spec.calls.includes(agent!), `${trace.id}: labelled ${agent}`);
        assert.equal(trace.steps[step!]?.agent, agent, `${trace.id}: step ${step} is ${agent}'s`);
        // Two runs merged into one would start twice.
        const starts = recordingOf(trace)!.calls.filter(
          (call) => call.agent === spec.calls[0] && call.agentCall === 0,
        );
        assert.equal(starts.length, 1, `${trace.id}: one run`);
      }
    });
  });
}
