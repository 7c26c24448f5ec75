import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalisedNumber, numbersIn } from './text-signals.js';

describe('numbersIn', () => {
  it('reads numbers, decimals and thousands, not digits inside words', () => {
    assert.deepEqual(
      [...numbersIn('Paid $312.50 for 1,000 items (id A12, x_3, 2021); 3.5x; 1.2.3')],
      ['312.5', '1000', '2021', '3', '1.2'],
    );
  });
});

describe('numbers compare by value', () => {
  it("drops thousands separators and a decimal's trailing zeros", () => {
    const cases: [string, string][] = [
      ['49', '49'],
      ['49.0', '49'],
      ['49.00', '49'],
      ['12.50', '12.5'],
      ['100', '100'],
      ['100.00', '100'],
      ['0.0', '0'],
      ['1,250', '1250'],
      ['10.05', '10.05'],
    ];
    for (const [written, value] of cases) assert.equal(normalisedNumber(written), value, written);
  });

  it('reads 49, 49.0 and 49.00 as one figure, a currency before or after aside', () => {
    assert.deepEqual([...numbersIn('calculate returned 49')], ['49']);
    assert.deepEqual([...numbersIn('TOTAL: 49.00 USD, that is $49.0 or 49 USD')], ['49']);
    assert.deepEqual([...numbersIn('USD 1,250.00')], ['1250']);
  });
});
