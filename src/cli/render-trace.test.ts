import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../trace/build-trace.js';
import { renderTrace } from './render-trace.js';

describe('a trace for reading', () => {
  it('shows a long trace as tables of 500 steps, each with its header, every step once', () => {
    const trace = buildTrace({
      id: 'long',
      format: 'test',
      steps: Array.from({ length: 1_001 }, (_, index) => ({
        speaker: index % 2 ? 'Coder' : 'Planner',
        content: `turn ${index}`,
      })),
    });
    const text = renderTrace(trace, 100);
    assert.equal(text.match(/│ # +│ agent/g)?.length, 3);
    const shown = [...text.matchAll(/│ (\d+) +│/g)].map((match) => Number(match[1]));
    assert.deepEqual(
      shown,
      trace.steps.map((step) => step.index),
    );
  });
});
