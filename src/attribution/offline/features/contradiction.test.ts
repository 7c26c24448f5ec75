/** A turn that reports a figure other than the one the tool it just read returned. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Step, Trace } from '../../../trace/model.js';
import { attributeWithModel, loadOfflineModel } from '../attribute/attributor.js';
import { contradictionOf } from './contradiction.js';
import { computeFeatures } from './features.js';
import { FEATURE_NAMES } from './feature-names.js';

const step = (index: number, agent: string, role: Step['role'], content: string): Step => ({
  index,
  agent,
  speaker: agent,
  role,
  content,
});

/** A shop run: the tool gives the unit price 12.5, the clerk reports 15.00 and totals from it. */
function shopRun(reported: string): Trace {
  const steps = [
    step(0, 'user', 'human', 'What do 4 notebooks cost?'),
    step(1, 'clerk', 'agent', 'Looking up the notebook price with lookup_price.'),
    step(2, 'lookup_price', 'tool', '{"item": "notebook", "unit_price": 12.5, "currency": "USD"}'),
    step(3, 'clerk', 'agent', `The unit price: ${reported} USD per notebook.`),
    step(4, 'cashier', 'agent', 'So 4 notebooks cost 60.00 USD in total.'),
  ];
  return {
    id: 'shop',
    format: 'messages',
    outcome: 'failure',
    question: 'What do 4 notebooks cost?',
    steps,
    agents: [
      { name: 'user', role: 'human', steps: 1 },
      { name: 'clerk', role: 'agent', steps: 2 },
      { name: 'lookup_price', role: 'tool', steps: 1 },
      { name: 'cashier', role: 'agent', steps: 1 },
    ],
    metadata: {},
  };
}

const column = FEATURE_NAMES.indexOf('contradicts_tool_output');

describe('contradicts_tool_output', () => {
  it('fires on the turn that restates the tool’s quantity with another value, and only there', () => {
    const trace = shopRun('15.00');
    assert.deepEqual(
      computeFeatures(trace).map((row) => row[column]),
      [0, 0, 0, 1, 0],
    );
    assert.deepEqual(contradictionOf(trace.steps, 3), {
      name: 'unit price',
      reported: '15.00',
      given: '12.5',
      tool: 'lookup_price',
      toolStep: 2,
    });
  });

  it('does not fire where the turn restates the same value', () => {
    assert.deepEqual(
      computeFeatures(shopRun('12.50')).map((row) => row[column]),
      [0, 0, 0, 0, 0],
    );
  });

  it('is quoted in the reason where it fires at the named step', () => {
    // Without the cashier's later turn, the clerk's report is the step named.
    const trace = shopRun('15.00');
    trace.steps.pop();
    const result = attributeWithModel(trace, loadOfflineModel());
    assert.equal(result.step, 3);
    assert.match(result.reason, /Step 3 reports 15\.00 where lookup_price returned 12\.5/);
    assert.doesNotMatch(attributeWithModel(shopRun('12.50'), loadOfflineModel()).reason, /reports/);
  });
});

describe('a tool output read however it was escaped', () => {
  /** The contradiction of a report of 15.00 after a tool output written `output`. */
  const after = (output: string, report = 'unit price: 15.00 USD') =>
    contradictionOf(
      [
        step(0, 'researcher', 'agent', 'lookup_price({"item": "widget"})'),
        step(1, 'lookup_price', 'tool', output),
        step(2, 'researcher', 'agent', report),
      ],
      2,
    );
  const forms: [string, string][] = [
    ['JSON', '{"item": "widget", "unit_price": 12.5}'],
    ['quote-stripped JSON (LlamaIndex.TS)', '{\\item\\:\\widget\\,\\unit_price\\:12.5}'],
    ['quote-stripped JSON, pretty-printed', '{\n  item: widget,\n  unit_price: 12.5\n}'],
    ['JSON inside a JSON string', '{"data": "{\\"item\\": \\"widget\\", \\"unit_price\\": 12.5}"}'],
    [
      'JSON inside JSON inside JSON',
      '{"result": "{\\"data\\": \\"{\\\\\\"unit_price\\\\\\": 12.5}\\"}"}',
    ],
    ['a Python repr', "{'item': 'widget', 'unit_price': Decimal('12.5')}"],
    ['key: value lines', 'item: widget\nunit price: 12.5 USD'],
    ['key = value', 'unit_price = 12.5'],
    ['a currency before the value', '{"unit_price": "$12.50"}'],
    ['a currency code before the value', 'unit_price: USD 12.5'],
  ];
  for (const [form, output] of forms)
    it(`${form}: ${output}`, () => {
      const found = after(output);
      assert.equal(found?.name, 'unit price', output);
      assert.equal(Number(found?.given), 12.5);
      assert.equal(found?.reported, '15.00');
    });

  it('compares by value: 12.50 and 12.5 agree, 1,250 and 1250 too', () => {
    assert.equal(after('{\\unit_price\\:12.5}', 'unit price: 12.50 USD'), undefined);
    assert.equal(after('{"unit_price": 1250}', 'unit price: 1,250.00 USD'), undefined);
    assert.equal(after('unit_price: USD 12.5', 'unit price: USD 12.5'), undefined);
  });
});

describe('a tool output that is one bare number', () => {
  const run = (tool: string, output: string, report: string) =>
    contradictionOf(
      [
        step(0, 'researcher', 'agent', `${tool}({"item": "widget"})`),
        { ...step(1, tool, 'tool', output), toolResults: [{ name: tool, content: output }] },
        step(2, 'researcher', 'agent', report),
      ],
      2,
    );

  it('is named by its tool, less the verb: lookup_price returning 12.5 is the price', () => {
    assert.deepEqual(run('lookup_price', '12.5', 'unit price: 15.00 USD'), {
      name: 'price',
      reported: '15.00',
      given: '12.5',
      tool: 'lookup_price',
      toolStep: 1,
    });
    assert.equal(run('get_unit_price', '"12.5"', 'The unit price is 15 USD.')?.name, 'unit price');
  });

  it('agrees by value, and a tool whose name names no quantity restated gives nothing', () => {
    assert.equal(run('lookup_price', '12.5', 'unit price: 12.50 USD'), undefined);
    assert.equal(run('calculate', '49', 'TOTAL: 49.00 USD'), undefined);
    assert.equal(run('calculate', '49', 'TOTAL: 52.00 USD'), undefined);
  });
});
