import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pricingRun, pricingRuns } from './__fixtures__/runs.js';
import { analyseSpectrum, countsText } from './rank.js';
import { abstractRuns } from './units.js';

describe('abstractRuns', () => {
  it('keeps a figure that recurs across runs as a term, and tells units apart by it', () => {
    const said = (index: number, price: string) => ({
      ...pricingRun(index, 'none'),
      steps: [{ ...pricingRun(index, 'none').steps[2]!, content: `unit price: ${price} USD` }],
    });
    const { runs } = abstractRuns([
      said(0, '15.00'),
      said(1, '15.00'),
      said(2, '12.50'),
      said(3, '12.50'),
    ]);
    assert.deepEqual(
      runs.map((run) => run.steps[0]),
      [0, 0, 1, 1],
    );
  });

  it('makes one unit of steps worded differently, with other numbers and ids', () => {
    const runs = [pricingRun(0, 'researcher'), pricingRun(1, 'researcher'), pricingRun(2, 'none')];
    const { runs: cut, units } = abstractRuns(runs);
    assert.equal(cut[0]!.steps[2], cut[1]!.steps[2]);
    assert.notEqual(cut[0]!.steps[2], cut[2]!.steps[2]);
    assert.equal(units[cut[0]!.steps[1]!]!.action, 'plan');
    assert.equal(units[cut[0]!.steps[4]!]!.action, 'answer');
    // the task's own message is not a unit of the team's
    assert.equal(units[cut[0]!.steps[0]!]!.agent, 'user');
  });
});

describe('analyseSpectrum', () => {
  it('names the step whose unit is in failing runs and not in passing ones, with its counts', () => {
    const runs = pricingRuns(6, 0, 4);
    const result = analyseSpectrum(runs);
    assert.deepEqual(result.runs, { failing: 6, passing: 4, unknown: 0 });
    assert.deepEqual(result.verdict, { agent: 'Researcher', step: 2 });
    assert.equal(result.conclusive, true);
    const top = result.failed.steps[0]!;
    assert.equal(countsText(top, result.runs), 'in 6 of 6 failing runs and 0 of 4 passing');
    assert.equal(result.agents[0]!.agent, 'Researcher');
  });

  it('ranks the error of most failing runs first and the other second', () => {
    const runs = pricingRuns(7, 3, 6);
    const result = analyseSpectrum(runs, { failed: runs[0] });
    assert.equal(result.units[0]!.agent, 'Researcher');
    const second = result.units.find(
      (unit) => unit.agent !== 'Researcher' && unit.failingRuns > 0 && unit.passingRuns === 0,
    );
    assert.equal(second?.agent, 'Analyst');
    assert.deepEqual(
      result.departures.map((origin) => [origin.agent, origin.runs]),
      [
        ['Researcher', 7],
        ['Analyst', 3],
      ],
    );
    const analystRun = analyseSpectrum(runs, { failed: runs[8] });
    assert.deepEqual(analystRun.verdict, { agent: 'Analyst', step: 3 });
  });

  it('works with every formula and without passing runs, saying so', () => {
    for (const formula of ['ochiai', 'tarantula', 'jaccard', 'dstar', 'kulczynski2']) {
      const result = analyseSpectrum(pricingRuns(5, 0, 3), { formula });
      assert.equal(result.verdict?.agent, 'Researcher', formula);
    }
    const allFailing = analyseSpectrum(pricingRuns(4, 0, 0));
    assert.match(allFailing.notes.join('\n'), /no run passed/);
  });

  it('says when the runs do not vary enough to conclude', () => {
    const one = analyseSpectrum([pricingRun(0, 'researcher')]);
    assert.equal(one.conclusive, false);
    assert.match(one.notes[0]!, /only one run/);
    const same = analyseSpectrum([pricingRun(0, 'researcher'), pricingRun(3, 'researcher')]);
    assert.equal(same.conclusive, false);
  });

  it('refuses runs of which none failed and an unknown formula', () => {
    assert.throws(() => analyseSpectrum(pricingRuns(0, 0, 3)), /none of the 3 runs failed/);
    assert.throws(() => analyseSpectrum(pricingRuns(2, 0, 1), { formula: 'x' }), /choose one of/);
  });
});
