import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_USAGE } from '../attribution/method.js';
import {
  calibrationTable,
  methodReliabilityTable,
  renderMarkdownReport,
} from './report-markdown.js';
import type { EvalRecord } from './result-store.js';
import { summariseEvaluation } from './summary.js';

/** A record of `method` naming `predicted` at the stated agent confidence. */
function record(
  method: string,
  index: number,
  predicted: string,
  agentConfidence: number,
  label: EvalRecord['label'],
): EvalRecord {
  return {
    method,
    useGroundTruth: true,
    traceKey: `trace-${index}`,
    file: `runs/${index}.json`,
    id: `${index}`,
    subset: 'runs',
    steps: 4,
    predicted: { agent: predicted, step: 1, reason: '', agentConfidence },
    label,
    usage: { ...NO_USAGE },
    milliseconds: 1,
  };
}

const INFO = {
  excludedTrainingTraces: 0,
  includeTrain: false,
  unlabelled: 0,
  plan: { folds: 2, seeds: [0] },
};

describe('calibration report', () => {
  it('judges agent confidence on single-cause runs too, where some runs have several causes', () => {
    // Stated 50% everywhere: right on both runs with three responsible agents (any counts),
    // right on one of the two runs with one.
    const records = [
      record('offline', 0, 'Coder', 0.5, {
        agent: 'Coder',
        agents: ['Coder', 'Planner', 'Tester'],
      }),
      record('offline', 1, 'Coder', 0.5, {
        agent: 'Planner',
        agents: ['Planner', 'Coder', 'Tester'],
      }),
      record('offline', 2, 'Coder', 0.5, { agent: 'Coder' }),
      record('offline', 3, 'Coder', 0.5, { agent: 'Planner' }),
    ];
    const summary = summariseEvaluation(records, [], INFO);
    const calibration = summary.calibration['offline (with GT)']!;
    assert.equal(calibration.agent!.ece, 0.25, 'all runs: stated 50%, right 75%');
    assert.equal(calibration.agentSingleCause!.ece, 0, 'one cause: stated 50%, right 50%');
    const table = calibrationTable(summary);
    assert.match(table, /\| agent confidence ECE, runs with one responsible agent \|/);
    assert.match(
      table,
      /\| offline \(with GT\) \| 0\.250 \(n 4: .*\| 0\.000 \(n 2: stated 50%, right 50%, over 0\.00\) \|/,
    );
    assert.match(table, /judged on the runs with one responsible agent/);
    assert.doesNotMatch(table, /not calibrated/, 'the shipped model states calibrated figures');
  });

  it('has no single-cause column where every run has one cause, and says fold models are raw', () => {
    const records = [0, 1].map((index) =>
      record('offline-loso', index, 'Coder', 0.9, { agent: 'Coder' }),
    );
    const table = calibrationTable(summariseEvaluation(records, [], INFO));
    assert.match(table, /^\| method \| agent confidence ECE \| step confidence ECE \|$/m);
    assert.match(table, /offline-cv and offline-loso score fold models that are not calibrated/);
  });

  it('charts agent reliability on all runs and on single-cause runs where some have several', () => {
    const records = [
      record('offline', 0, 'Coder', 0.55, { agent: 'Coder' }),
      record('offline', 1, 'Coder', 0.95, { agents: ['Coder', 'Planner'] }),
    ];
    const lines = methodReliabilityTable(summariseEvaluation(records, [], INFO)).split('\n');
    assert.equal(
      lines[2],
      '| offline (with GT), agent | – | – | – | – | – | 100% of 1 | – | – | – | 100% of 1 | -0.25 |',
    );
    assert.equal(
      lines[3],
      '| offline (with GT), agent, runs with one responsible agent | – | – | – | – | – | 100% of 1 | – | – | – | – | -0.45 |',
    );
  });

  it('charts reliability per tenth of stated confidence: how often right, of how many', () => {
    const records = [
      record('offline', 0, 'Coder', 0.05, { agent: 'Planner' }),
      record('offline', 1, 'Coder', 0.55, { agent: 'Coder' }),
      record('offline', 2, 'Coder', 0.58, { agent: 'Planner' }),
      record('offline', 3, 'Coder', 0.95, { agent: 'Coder' }),
    ];
    const summary = summariseEvaluation(records, [], INFO);
    const table = methodReliabilityTable(summary);
    const [heading, , agent] = table.split('\n');
    assert.equal(heading!.split('|').length - 4, 10, 'ten bins and the overstatement');
    assert.match(heading!, /^\| stated confidence \| 0–10% \| 10–20% \|.*\| 90–100% \| over \|$/);
    // Stated 53.25% on average, right 50%: over +0.03.
    assert.equal(
      agent,
      '| offline (with GT), agent | 0% of 1 | – | – | – | – | 50% of 2 | – | – | – | 100% of 1 | +0.03 |',
    );
    assert.doesNotMatch(table, /, step \|/, 'no step confidence stated: no step line');
    assert.doesNotMatch(table, /one responsible agent/, 'every run has one cause: one agent line');
    assert.match(
      renderMarkdownReport(summary),
      /Reliability: for each tenth[^\n]*\n\n\| stated confidence/,
    );
  });

  it('reports overstatement beside ECE, per subset', () => {
    // Subset a: stated 90%, right 1 of 2 (over +0.40); subset b: stated 20%, right 2 of 2 (-0.80).
    const records = [
      { ...record('offline', 0, 'Coder', 0.9, { agent: 'Coder' }), subset: 'a' },
      { ...record('offline', 1, 'Coder', 0.9, { agent: 'Planner' }), subset: 'a' },
      { ...record('offline', 2, 'Coder', 0.2, { agent: 'Coder' }), subset: 'b' },
      { ...record('offline', 3, 'Coder', 0.2, { agent: 'Coder' }), subset: 'b' },
    ];
    const summary = summariseEvaluation(records, [], INFO);
    const bySubset = summary.calibrationBySubset['offline (with GT)']!;
    assert.equal(bySubset.a!.agent!.overstatement.toFixed(2), '0.40');
    assert.equal(bySubset.b!.agent!.overstatement.toFixed(2), '-0.80');
    const report = renderMarkdownReport(summary);
    assert.match(
      report,
      /\| offline \(with GT\) \| a \| 90% \| 50% \| \+0\.40 \| 0\.400 \| – \| – \| – \| – \|/,
    );
    assert.match(report, /\| offline \(with GT\) \| b \| 20% \| 100% \| -0\.80 \| 0\.800 \|/);
    assert.match(calibrationTable(summary), /stated 55%, right 75%, over -0\.20\)/);
  });
});
