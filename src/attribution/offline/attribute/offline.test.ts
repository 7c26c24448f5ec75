/** The offline method end to end: answers, familiarity, stated confidences, the library entry point. */
import type { UnfamiliarStep } from '../model/settings.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES, HAS_SHARED_DATA, ROOT, WHO_AND_WHEN } from '../../../../test/paths.js';
import { ModelFileError } from '../../../errors.js';
import { withMinimumConfidence } from '../../min-confidence.js';
import { buildTrace } from '../../../trace/build-trace.js';
import { loadBatch, loadTrace } from '../../../trace/load.js';
import type { Trace } from '../../../trace/model.js';
import {
  attributeWithModel,
  attributeWithSignals,
  DEFAULT_MODEL_PATH,
  loadOfflineModel,
} from './attributor.js';
import { statedFigure } from '../scores/statement.js';
import { applyPlatt } from '../scores/calibration.js';
import { predict } from '../scores/predict.js';
import { decode } from '../decode/decode.js';
import { regimeOf } from '../decode/regimes.js';
import { fitFamiliarity, type FamiliarityModel } from '../familiarity/familiarity.js';
import { FEATURE_NAMES } from '../features/feature-names.js';
import { stepInputs } from '../features/inputs.js';
import { computeFeatures } from '../features/features.js';
import { validateModel } from '../model/model-file.js';

async function loadAll(path: string): Promise<Trace[]> {
  const traces: Trace[] = [];
  for await (const result of loadBatch([path])) if (result.ok) traces.push(...result.traces);
  return traces;
}

describe('offline attributor', () => {
  it('answers for every format fixture with a valid step, agent and reason', async () => {
    const model = loadOfflineModel();
    const traces = await loadAll(join(FIXTURES, 'formats'));
    assert.ok(traces.length >= 20);
    for (const trace of traces) {
      const result = attributeWithModel(trace, model);
      assert.ok(
        result.step !== null && result.step >= 0 && result.step < trace.steps.length,
        trace.id,
      );
      assert.ok(
        trace.agents.some((agent) => agent.name === result.agent),
        `${trace.id}: ${result.agent}`,
      );
      assert.notEqual(trace.steps[result.step]!.role, 'human');
      assert.ok(result.reason.length > 10);
      assert.ok(result.confidence! > 0 && result.confidence! <= 1);
      assert.ok(result.candidates!.length >= 1 && result.candidates!.length <= 3);
      // The named agent speaks the named step, which leads the candidates.
      assert.equal(trace.steps[result.step]!.agent, result.agent, trace.id);
      assert.equal(result.candidates![0]!.step, result.step);
      const { mask } = stepInputs(trace, true);
      for (const { step } of result.candidates!)
        assert.ok(mask[step], `${trace.id}: candidate step ${step} may not be named`);
      assert.deepEqual(result.usage, { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });
    }
  });

  it('has one feature row per step, all finite', async () => {
    const trace = await loadTrace(join(FIXTURES, 'formats/whowhen-hand-crafted-magentic-one.json'));
    const rows = computeFeatures(trace);
    assert.equal(rows.length, trace.steps.length);
    for (const row of rows) {
      assert.equal(row.length, FEATURE_NAMES.length);
      assert.ok(row.every(Number.isFinite));
    }
  });

  it('quotes the evidence in its reason and lists each quoted line with its step', async () => {
    const model = loadOfflineModel();
    for (const file of [
      'formats/langfuse-trace-export.json',
      'formats/whowhen-hand-crafted-magentic-one.json',
      'formats/whowhen-algorithm-generated.json',
    ]) {
      const trace = await loadTrace(join(FIXTURES, file));
      const result = attributeWithModel(trace, model);
      assert.match(result.reason, /Evidence: /, file);
      assert.ok(result.evidence && result.evidence.length > 0, file);
      for (const { step, quote } of result.evidence) {
        assert.ok([result.step, result.step! + 1].includes(step), `${file}: step ${step}`);
        assert.ok(trace.steps[step]!.content.includes(quote.replace(/\.\.\.$/, '')), quote);
        assert.ok(result.reason.includes(`"${quote}"`), quote);
      }
    }
  });

  it('quotes the error a tracing source recorded for the failing tool step', async () => {
    // A Langfuse tool observation that failed: "HTTP 429 from search API" names no error the way a
    // tool's own output does ("Error:", a traceback), so the observation's recorded status is quoted.
    const trace = await loadTrace(join(FIXTURES, 'formats/langfuse-trace-export.json'));
    const failing = trace.steps.find((step) => step.error)!;
    const result = attributeWithModel(trace, loadOfflineModel());
    assert.equal(result.step, failing.index - 1);
    assert.deepEqual(result.evidence, [{ step: failing.index, quote: failing.error }]);
    assert.ok(result.reason.includes(`"${failing.error}"`), result.reason);
    assert.ok(failing.content.includes(failing.error!), 'the page can highlight it');
  });

  it('says which step it names when the earliest-step rule picked the agent by another step', async () => {
    // Magentic-One's log: WebSurfer's step scores highest, the Orchestrator's earlier step is
    // nearly as likely, and the Orchestrator's likeliest step is the one named.
    const trace = await loadTrace(join(FIXTURES, 'formats/magentic-one-log.jsonl'));
    const result = attributeWithModel(trace, loadOfflineModel());
    const earliest = /'s step (\d+) comes earlier/.exec(result.reason);
    assert.ok(earliest, result.reason);
    assert.notEqual(Number(earliest[1]), result.step);
    assert.ok(
      result.reason.includes(`is named, at its likeliest step (${result.step}).`),
      result.reason,
    );
  });

  it('hides the expected answer when asked', async () => {
    const trace = buildTrace({
      id: 't',
      format: 'test',
      groundTruth: '391',
      steps: [
        { speaker: 'Math_Expert', content: '17 * 23 = 391' },
        { speaker: 'Verifier', content: 'No, it is 381.' },
      ],
    });
    const column = FEATURE_NAMES.indexOf('mentions_answer');
    const withAnswer = computeFeatures(trace);
    const without = computeFeatures({ ...trace, groundTruth: undefined });
    assert.ok(withAnswer.some((row) => row[column] === 1));
    assert.ok(without.every((row) => row[column] === 0));
  });

  it('answers nothing, rather than blame the task, for a run in which no agent took a step', () => {
    const trace = buildTrace({
      id: 't',
      format: 'test',
      question: 'hi',
      steps: [
        { speaker: 'system', content: 'You are a helpful assistant.' },
        { speaker: 'user', content: 'hi' },
      ],
    });
    const result = attributeWithModel(trace, loadOfflineModel());
    assert.equal(result.agent, null);
    assert.equal(result.step, null);
    assert.match(result.reason, /no agent or tool took a step/);
  });

  it('rejects a model file of another feature set with an actionable message', () => {
    const model = JSON.parse(readFileSync(DEFAULT_MODEL_PATH, 'utf8'));
    model.step.features = model.step.features.slice(1);
    assert.throws(
      () => validateModel(model, 'old.json'),
      (error: unknown) =>
        error instanceof ModelFileError && /retrain with `faultline train`/.test(error.message),
    );
  });
});

describe(
  'naming the agent rejected first',
  { skip: HAS_SHARED_DATA ? false : `shared data not found at ${WHO_AND_WHEN}` },
  () => {
    it('of the agents nearly as likely as the most likely, in an unfamiliar run', async () => {
      const run = await loadTrace(join(WHO_AND_WHEN, 'Algorithm-Generated/25.json'));
      const shipped = loadOfflineModel();
      assert.equal(shipped.decoding.unfamiliarRejectedShare, 0.8);
      // The run made unfamiliar: no agent name the model knows.
      const decoded = (unfamiliarRejectedShare: number) =>
        attributeWithModel(run, {
          ...shipped,
          familiarity: { ...shipped.familiarity, names: [] },
          decoding: { ...shipped.decoding, unfamiliarRejectedShare },
        });
      const named = decoded(0.8);
      assert.equal(named.familiar, false);
      assert.deepEqual([named.agent, named.step], ['Physics_Expert', 1]);
      assert.match(
        named.reason,
        /what follows rejects its step 1 first, so Physics_Expert is named/,
      );
      assert.equal(decoded(0).agent, 'ModelEvaluation_Interpretation_Expert', 'off: the top step');
    });
  },
);

describe('familiarity and confidence', () => {
  it('marks runs of a team the model never saw as unfamiliar', async () => {
    const model = loadOfflineModel();
    for (const file of ['examples/who-and-when-ag-58.json', 'examples/who-and-when-hc-6.json'])
      assert.equal(attributeWithModel(await loadTrace(join(ROOT, file)), model).familiar, true);
    const unseen = await loadTrace(join(FIXTURES, 'formats/otlp-genai-semconv.json'));
    assert.equal(attributeWithModel(unseen, model).familiar, false);
  });

  it('takes an unusual run of a team that ran training runs as familiar', async () => {
    const model = loadOfflineModel();
    const run = await loadTrace(join(ROOT, 'examples/who-and-when-hc-6.json'));
    // Every profile judged far away: only the team can make the run familiar.
    const far = (familiarity: FamiliarityModel, keepRosters: boolean): FamiliarityModel => ({
      ...familiarity,
      systems: familiarity.systems!.map(({ rosters, ...system }) => ({
        ...system,
        threshold: -1,
        ...(keepRosters && rosters ? { rosters } : {}),
      })),
    });
    const judged = (keepRosters: boolean) =>
      attributeWithModel(run, {
        ...model,
        familiarity: far(model.familiarity, keepRosters),
        stepFamiliarity: far(model.stepFamiliarity!, keepRosters),
      }).familiar;
    assert.equal(judged(true), true, 'Magentic-One ran many training runs with this team');
    assert.equal(judged(false), false);
    // A roster is kept when at least two training runs had it, and only of two agents or more.
    const team = (id: string, speakers: string[]) =>
      buildTrace({
        id,
        format: 'test',
        question: 'q',
        steps: speakers.map((speaker) => ({ speaker, content: `${speaker} works on it.` })),
      });
    const traces = [
      team('a', ['Planner', 'Coder']),
      team('b', ['Coder', 'Planner', 'Coder']),
      team('c', ['Planner', 'Tester']),
      team('d', ['Solo']),
      team('e', ['Solo']),
    ];
    const fitted = fitFamiliarity(
      traces,
      traces.map((trace) => computeFeatures(trace)),
      () => 'one system',
    );
    assert.deepEqual(fitted.rosters, [['coder', 'planner']]);
  });

  it('states lower confidence on an unfamiliar run than its raw scores', async () => {
    const model = loadOfflineModel();
    assert.ok(model.calibration, 'the shipped model is calibrated');
    const { calibration, ...raw } = model;
    const unseen = await loadTrace(join(FIXTURES, 'formats/otlp-genai-semconv.json'));
    const stated = attributeWithModel(unseen, model);
    const unmapped = attributeWithModel(unseen, raw);
    assert.equal(stated.step, unmapped.step, 'calibration never changes the answer');
    assert.ok(stated.confidence! < unmapped.confidence!);
    assert.ok(calibration.unfamiliar.step.a < 1);
  });

  it("states an unfamiliar run's candidates at how often their rank was right held out", async () => {
    const model = loadOfflineModel();
    const byRank = model.calibration?.unfamiliar.stepByRank;
    assert.ok(byRank && byRank.length === 3, 'the shipped model has a rate per rank');
    assert.ok(byRank[0]! >= byRank[1]! && byRank[1]! >= byRank[2]!);
    const unseen = await loadTrace(join(FIXTURES, 'formats/otlp-genai-semconv.json'));
    const { attribution: result, signals } = attributeWithSignals(unseen, model);
    assert.equal(result.familiar, false);
    // The named step at what held-out runs showing the same signals were right (else the held-out
    // low end, by whether the agent scorer has a clear favourite), never below chance; the others
    // at their rank's rate, never above it.
    const named = model.calibration!.unfamiliar.stepByEvidence!;
    const { stepFit } = model.calibration!.unfamiliar;
    const figure = stepFit
      ? statedFigure(stepFit, signals!.step, signals!.steps)
      : named[result.clearFavourite ? 1 : 0];
    assert.equal(result.confidence, Number(Math.max(1 / signals!.steps, figure).toFixed(4)));
    assert.deepEqual(
      result.candidates?.slice(1).map((candidate) => candidate.score),
      byRank.slice(1, result.candidates?.length).map((rate) => Number(rate.toFixed(4))),
    );
    assert.ok(byRank[1]! <= named[0]);
    // Older model files, without the rates, state the step mapping's rate for each candidate.
    const {
      stepByRank: _dropped,
      stepByEvidence: _named,
      ...older
    } = model.calibration!.unfamiliar;
    const old = attributeWithModel(unseen, {
      ...model,
      calibration: { ...model.calibration!, unfamiliar: older },
    });
    // (the named one never below chance): each other candidate at the mapping's rate of its raw
    // joint score, not at its rank's.
    const prediction = predict(unseen, model);
    const { joint } = decode(unseen, prediction, regimeOf(unseen, prediction.rows, model));
    assert.ok((old.candidates?.length ?? 0) > 1);
    assert.deepEqual(
      old.candidates?.slice(1).map((candidate) => candidate.score),
      old.candidates
        ?.slice(1)
        .map((candidate) => Number(applyPlatt(joint[candidate.step]!, older.step).toFixed(4))),
    );
  });

  it('names the top step of an unfamiliar run (no earliest-step rule); older model files still load', async () => {
    const shipped = loadOfflineModel();
    assert.equal(shipped.decoding.unfamiliarAgentWeight, 2);
    const model = { ...shipped, decoding: { ...shipped.decoding, unfamiliarStep: 'likeliest' } };
    const unseen = await loadTrace(join(FIXTURES, 'formats/otlp-genai-semconv.json'));
    const result = attributeWithModel(unseen, validateModel(model, 'likeliest.json'));
    assert.equal(result.familiar, false);
    const scores = result.candidates!.map((candidate) => candidate.score);
    assert.equal(scores[0], Math.max(...scores), 'the named step scores highest');
    const { unfamiliarAgentWeight: _, unfamiliarStep: __, ...decoding } = shipped.decoding;
    const older = validateModel(JSON.parse(JSON.stringify({ ...shipped, decoding })), 'old.json');
    assert.equal(older.decoding.unfamiliarAgentWeight, undefined);
    assert.equal(older.decoding.unfamiliarStep, undefined);
    assert.ok(attributeWithModel(unseen, older).agent);
  });

  it("reports the named agent's first failing step on a run unlike the step-labelled ones", async () => {
    const shipped = loadOfflineModel();
    assert.equal(shipped.decoding.unfamiliarStep, 'rejected-else-likeliest');
    const decoded = (run: Trace, unfamiliarStep: UnfamiliarStep) =>
      attributeWithModel(run, { ...shipped, decoding: { ...shipped.decoding, unfamiliarStep } });
    const run = await loadTrace(join(FIXTURES, 'formats/ag2-autogen02-tool-calls.json'));
    const first = decoded(run, 'first-failing');
    const likeliest = decoded(run, 'likeliest');
    assert.equal(first.familiar, false);
    assert.equal(first.agent, likeliest.agent, 'the step rule never changes the agent');
    // Nothing the assistant does is rejected: not its first tool call (whose arguments the
    // customer gave) but the exchange whose new item and payment ids nothing earlier gives.
    assert.deepEqual([first.step, likeliest.step], [10, 6]);
    // The shipped blend keeps the first failing step only where what follows rejects it.
    assert.equal(decoded(run, 'rejected-else-likeliest').step, 6);
    assert.equal(first.candidates![0]!.step, first.step, 'the named step is listed first');
    assert.match(
      first.reason,
      /first step that brings a figure new to the run .* rather than its highest-scoring one \(step 6\)/,
    );
    assert.match(first.reason, /assistant at step 10: it introduces new figures;/, 'what chose it');
    // A greeting does not act: the agent's first step that does (here it states figures) is named.
    const greeting = buildTrace({
      id: 'greeting',
      format: 'test',
      question: 'Return order 4411 and refund it to the original card.',
      steps: [
        { speaker: 'customer', role: 'human', content: 'Return order 4411, refund to my card.' },
        { speaker: 'Helpdesk', content: 'Hello! I am happy to help you with that today.' },
        { speaker: 'Shopper', content: 'My order is 4411, I want the refund on my card please.' },
        { speaker: 'Helpdesk', content: 'The refund of 129.99 was issued to your gift card.' },
        { speaker: 'Shopper', content: 'Thanks, bye.' },
      ],
    });
    const named = decoded(greeting, 'first-failing');
    assert.equal(named.familiar, false);
    assert.deepEqual([named.agent, named.step], ['Helpdesk', 3]);
  });

  it('answers "no confident attribution" below the minimum, keeping the candidates', async () => {
    const trace = await loadTrace(join(ROOT, 'examples/who-and-when-hc-6.json'));
    const result = attributeWithModel(trace, loadOfflineModel());
    assert.equal(withMinimumConfidence(result, 0), result);
    const held = withMinimumConfidence(result, 0.999);
    assert.equal(held.agent, null);
    assert.equal(held.step, null);
    assert.deepEqual(held.candidates, result.candidates);
    assert.match(held.reason, /^No confident attribution: the most likely agent, Orchestrator/);
  });
});

describe('the library entry point', () => {
  it("attributes the original tool's plain object", async () => {
    const { attribute } = await import('../../attribute.js');
    const result = await attribute({
      question: 'What is 17 * 23?',
      history: [
        { role: 'user', content: 'What is 17 * 23?' },
        { role: 'assistant', name: 'Calculator', content: '17 * 23 = 381' },
        { role: 'assistant', name: 'Verifier', content: 'Looks right. TERMINATE' },
      ],
    });
    assert.ok(result.agent === 'Calculator' || result.agent === 'Verifier', result.agent ?? '');
  });
});
