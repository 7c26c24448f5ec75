import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../../../trace/build-trace.js';
import type { TraceLabels } from '../../../trace/model.js';
import { loadOfflineModel, attributeWithModel } from '../attribute/attributor.js';
import { fitLogistic } from '../train/fit-logistic.js';
import { logisticProbability } from '../scores/logistic.js';
import { AGENT_MODE_FEATURE_NAMES, MODE_FEATURE_NAMES, modeFeatures } from './mode-features.js';
import {
  labelledModes,
  namedModes,
  predictAgentModes,
  predictModes,
  SHOWN_MODES,
  stepTiedMode,
  type ModeModel,
} from './mode-model.js';
import {
  chooseThresholds,
  frequentModes,
  modeTrainingExamples,
  trainModeModel,
  type ModeExample,
} from './mode-training.js';
import { stepInputs } from '../features/inputs.js';

const run = (contents: string[], labels?: TraceLabels, question?: string) =>
  buildTrace({
    id: 'run',
    format: 'test',
    steps: contents.map((content, index) => ({
      speaker: index % 2 ? 'coder' : 'planner',
      content,
    })),
    ...(labels ? { labels } : {}),
    ...(question ? { question } : {}),
  });

describe('labelled modes', () => {
  it("reads a run's own modes, else its injected faults' modes, canonical and once each", () => {
    assert.deepEqual(labelledModes(run(['a'], { modes: ['FM-1.3', '2.6', '1.3'] })), [
      '1.3',
      '2.6',
    ]);
    assert.deepEqual(
      labelledModes(
        run(['a'], {
          agent: 'coder',
          faults: [
            { agent: 'coder', mode: 'FM-2.3' },
            { agent: 'planner', mode: '2.3' },
          ],
        }),
      ),
      ['2.3'],
    );
    assert.deepEqual(labelledModes(run(['a'], { modes: [] })), [], 'no mode is a label too');
    assert.equal(labelledModes(run(['a'], { agent: 'coder' })), undefined);
  });
});

describe('logistic regression', () => {
  it('learns a separable direction and keeps probabilities in (0, 1)', () => {
    const rows = [[0], [1], [2], [3], [4], [5]];
    const labels = [false, false, false, true, true, true];
    const model = fitLogistic(rows, labels, 0.01);
    assert.ok(logisticProbability(model, [5]) > 0.9);
    assert.ok(logisticProbability(model, [0]) < 0.1);
    // A constant column is kept finite (scale 1) and learns nothing.
    const flat = fitLogistic(
      rows.map((row) => [...row, 7]),
      labels,
      0.01,
    );
    assert.ok(Math.abs(flat.weights[1]!) < 1e-9);
  });
});

describe('thresholds', () => {
  it('names a mode only when naming it raises micro-F1', () => {
    // Mode 0 is well separated; mode 1 is noise at prevalence 1/4: naming it everywhere would
    // add more false positives than hits, so its threshold goes above every probability.
    const probabilities = [
      [0.9, 0.3],
      [0.8, 0.3],
      [0.2, 0.3],
      [0.1, 0.3],
    ];
    const labels = [
      [true, true],
      [true, false],
      [false, false],
      [false, false],
    ];
    const [first, second] = chooseThresholds(probabilities, labels);
    assert.ok(first! > 0.2 && first! <= 0.8, `first ${first}`);
    assert.ok(second! > 0.3, `second ${second}`);
  });

  it('the constant baseline keeps the k most frequent modes that maximise micro-F1', () => {
    const labels = [['1.3', '2.6'], ['1.3'], ['1.3', '2.6'], ['3.3'], []];
    assert.deepEqual(frequentModes(labels), ['1.3', '2.6']);
  });
});

describe('mode classifier', () => {
  const examples: ModeExample[] = Array.from({ length: 40 }, (_, index) => {
    const repeats = index % 2 === 0;
    const contents = repeats
      ? [
          'plan the work',
          'run the same code again',
          'run the same code again',
          'run the same code again',
        ]
      : ['plan the work', 'write the code', 'the tests pass', 'TERMINATE'];
    const trace = run(contents, { modes: repeats ? ['1.3'] : ['3.2'] }, `task ${index}`);
    return {
      trace,
      row: modeFeatures(trace, stepInputs(trace).rows),
      modes: repeats ? ['1.3'] : ['3.2'],
    };
  });

  it('learns modes that the run shows, with thresholds and a baseline, and predicts them in order', () => {
    const model = trainModeModel(examples, ['runs/']);
    assert.deepEqual(
      model.modes.map((mode) => mode.code),
      ['1.3', '3.2'],
      'only modes with enough runs',
    );
    assert.equal(model.features.length, MODE_FEATURE_NAMES.length);
    assert.equal(model.training.traces, 40);
    const repeating = predictModes(model, examples[0]!.row);
    assert.equal(repeating[0]?.code, '1.3');
    assert.equal(repeating[0]?.name, 'Step repetition');
    assert.ok(!repeating.some((mode) => mode.code === '3.2'));
    const confidences = repeating.map((mode) => mode.confidence!);
    assert.deepEqual(
      confidences,
      [...confidences].sort((left, right) => right - left),
    );
  });

  it('the shipped model names modes with their names, most confident first', () => {
    const model = loadOfflineModel();
    const result = attributeWithModel(examples[0]!.trace, model);
    assert.ok(result.modes !== undefined);
    for (const mode of result.modes) {
      assert.match(mode.code, /^\d\.\d$/);
      assert.ok(mode.name.length > 3);
      const threshold = model.modes!.modes.find((entry) => entry.code === mode.code)!.threshold;
      assert.ok(mode.confidence! >= threshold);
    }
  });

  it('ties to the named step the found mode its values raise most through the run maxima', () => {
    // Two step features; mode features are [mean a, mean b, max a, max b].
    const entry = (code: string, weights: number[]) => ({
      code,
      mean: [0, 0, 0, 0],
      scale: [1, 1, 1, 1],
      weights,
      bias: 0,
      threshold: 0.5,
      rate: 0.5,
      heldOut: { precision: 0, recall: 0, f1: 0, beatsConstant: false },
    });
    const model: ModeModel = {
      features: ['a', 'b', 'max a', 'max b'],
      modes: [entry('1.3', [5, 0, 0, 1]), entry('2.6', [0, 0, 2, 0])],
      baseline: [],
      training: { traces: 0, l2: 1, traceHashes: [], data: [] },
    };
    const found = predictModes(model, [1, 0, 1, 1]);
    assert.deepEqual(
      found.map((mode) => mode.code),
      ['1.3', '2.6'],
    );
    assert.equal(stepTiedMode(model, found, [1, 0])?.code, '2.6', 'the step raises max a');
    assert.equal(stepTiedMode(model, found, [0, 1])?.code, '1.3', 'the step raises max b');
    assert.equal(stepTiedMode(model, found, [0, 0]), undefined, 'the step raises none');
  });

  it('learns per-agent modes from faults labelled per agent, and names them for the agent that shows them', () => {
    // The coder repeats itself in half the runs (its fault, 1.3); the planner never errs.
    const runs = Array.from({ length: 40 }, (_, index) => {
      const repeats = index % 2 === 0;
      return run(
        repeats
          ? ['plan the work', 'run the same code again', 'check', 'run the same code again']
          : ['plan the work', 'write the code', 'check', 'the tests pass'],
        repeats
          ? { agent: 'coder', faults: [{ agent: 'coder', mode: 'FM-1.3' }] }
          : { agent: 'coder', faults: [{ agent: 'coder', mode: '2.6' }] },
        `task ${index}`,
      );
    });
    const examples = modeTrainingExamples(runs).agents;
    assert.equal(examples.length, 80, 'one example per agent and run');
    assert.deepEqual(
      examples.slice(0, 2).map((example) => example.modes),
      [[], ['1.3']],
      "the planner has no modes, the coder its fault's",
    );
    const model = trainModeModel(examples, [], undefined, AGENT_MODE_FEATURE_NAMES);
    assert.equal(model.features.length, AGENT_MODE_FEATURE_NAMES.length);
    assert.equal(model.training.traceHashes.length, 2, 'each run content once, not per agent');
    const named = predictAgentModes(model, runs[0]!, stepInputs(runs[0]!).rows);
    assert.equal(named[0]?.agent, 'coder');
    assert.equal(named[0]?.modes[0]?.code, '1.3');
    assert.ok(!named.some((entry) => entry.agent === 'planner'));
  });
});

describe('the modes shown by default', () => {
  // Four modes on one feature; probabilities σ(weight · x) at x = 1.
  const entry = (code: string, weight: number, rate: number, beatsConstant: boolean) => ({
    code,
    mean: [0],
    scale: [1],
    weights: [weight],
    bias: 0,
    threshold: 0.3,
    rate,
    heldOut: { precision: 0.5, recall: 0.5, f1: 0.5, beatsConstant },
  });
  const model: ModeModel = {
    features: ['x'],
    modes: [
      entry('1.1', 2, 0.5, true), // p 0.88, lift 1.76
      entry('1.3', 1, 0.1, true), // p 0.73, lift 7.3
      entry('2.6', 0.5, 0.2, true), // p 0.62, lift 3.1
      entry('3.3', 3, 0.05, false), // p 0.95, but no better than the constant answer
      entry('1.5', 0.2, 0.4, true), // p 0.55, lift 1.4: the fourth eligible one
      entry('2.2', -3, 0.01, true), // p 0.05: under its threshold, not named
      entry('3.1', 0, 0.6, true), // p 0.5: named, but less likely than usual (lift 0.83)
    ],
    baseline: [],
    training: { traces: 0, l2: 1, traceHashes: [], data: [] },
  };

  it('are the named modes that beat the constant answer, at most three, highest lift first', () => {
    const found = predictModes(model, [1]);
    assert.deepEqual(
      found.filter((mode) => mode.shown).map((mode) => mode.code),
      ['1.3', '2.6', '1.1'],
    );
    assert.ok(found.filter((mode) => mode.shown).length <= SHOWN_MODES);
    // The others stay in the result, not shown, most confident first; unnamed modes are absent.
    assert.deepEqual(
      found.filter((mode) => !mode.shown).map((mode) => mode.code),
      ['3.3', '1.5', '3.1'],
    );
    assert.equal(found.find((mode) => mode.code === '1.3')?.lift, 7.3106);
  });

  it('are marked the same way per agent, three at most', () => {
    const found = namedModes(model, { '1.1': 0.9, '1.3': 0.9, '2.6': 0.9, '1.5': 0.9, '3.3': 1 });
    assert.equal(found.filter((mode) => mode.shown).length, 3);
    assert.equal(found.find((mode) => mode.code === '3.3')?.shown, false);
  });
});
