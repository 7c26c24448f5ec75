import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pricingRun } from '../attribution/spectrum/__fixtures__/runs.js';
import type { Trace } from '../trace/model.js';
import { resolveSiblings } from './siblings.js';

const at = (trace: Trace, source: string, labelled = false): Trace => ({
  ...trace,
  source,
  ...(labelled ? { labels: { agent: 'Researcher', step: 2 } } : {}),
});

describe('resolveSiblings', () => {
  it('gives each labelled run the other runs of its task folder', () => {
    const studied = at(pricingRun(0, 'researcher'), 'root/widget/0.json', true);
    const repeats = [1, 2, 3].map((index) =>
      at(pricingRun(index, index === 3 ? 'none' : 'researcher'), `root/widget/${index}.json`),
    );
    const other = at(pricingRun(0, 'researcher', 'gadget'), 'root/gadget/0.json', true);
    const siblings = resolveSiblings([studied, ...repeats, other]);
    assert.deepEqual(siblings.get(studied), repeats);
    assert.equal(siblings.has(other), false);
  });

  it('keeps to the labelled run’s task in a mixed folder, and sees no task folder in a flat data set', () => {
    const widget = at(pricingRun(0, 'researcher'), 'flat/1.json', true);
    const gadget = at(pricingRun(0, 'researcher', 'gadget'), 'flat/2.json', true);
    const repeat = at(pricingRun(1, 'none'), 'flat/3.json');
    const siblings = resolveSiblings([widget, gadget, repeat]);
    assert.deepEqual(siblings.get(widget), [repeat]);
    assert.equal(siblings.has(gadget), false);
  });
});
