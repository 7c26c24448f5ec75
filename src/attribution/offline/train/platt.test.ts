/** Platt mappings: fitted on judged predictions, identity when there are too few. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyPlatt, IDENTITY } from '../scores/calibration.js';
import { fitPlatt } from './platt.js';

describe('Platt calibration', () => {
  it('leaves scores alone with fewer than ten judged predictions', () => {
    assert.deepEqual(fitPlatt([{ confidence: 0.9, correct: false }]), IDENTITY);
    assert.equal(applyPlatt(0.3, IDENTITY).toFixed(6), '0.300000');
  });

  it('lowers scores that are too sure', () => {
    // Stated 90%, right half of the time.
    const judged = Array.from({ length: 200 }, (_, index) => ({
      confidence: 0.9,
      correct: index % 2 === 0,
    }));
    const platt = fitPlatt(judged);
    const stated = applyPlatt(0.9, platt);
    assert.ok(Math.abs(stated - 0.5) < 0.05, `stated ${stated}`);
  });

  it('keeps the order of scores', () => {
    const judged = Array.from({ length: 100 }, (_, index) => ({
      confidence: (index % 10) / 10 + 0.05,
      correct: index % 3 === 0,
    }));
    const platt = fitPlatt(judged);
    assert.ok(applyPlatt(0.2, platt) <= applyPlatt(0.8, platt));
  });

  it('states one rate for every score when higher scores are right less often', () => {
    const judged = Array.from({ length: 100 }, (_, index) => ({
      confidence: (index % 10) / 10 + 0.05,
      correct: index % 10 < 3,
    }));
    const platt = fitPlatt(judged);
    assert.equal(platt.a, 0);
    assert.equal(applyPlatt(0.2, platt), applyPlatt(0.8, platt));
    assert.ok(Math.abs(applyPlatt(0.5, platt) - 0.3) < 0.02, 'the rate is the share right');
  });
});
