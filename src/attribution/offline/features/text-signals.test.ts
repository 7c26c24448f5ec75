import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { numbersIn } from './text-signals.js';

describe('numbersIn', () => {
  it('reads numbers, decimals and thousands, not digits inside words', () => {
    assert.deepEqual(
      [...numbersIn('Paid $312.50 for 1,000 items (id A12, x_3, 2021); 3.5x; 1.2.3')],
      ['312.50', '1000', '2021', '3', '1.2'],
    );
  });
});
