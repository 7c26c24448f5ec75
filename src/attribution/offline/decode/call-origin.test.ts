import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES } from '../../../../test/paths.js';
import { importTraceText, loadTraces } from '../../../trace/load.js';
import type { Trace } from '../../../trace/model.js';
import { attributeWithModel, loadOfflineModel } from '../attribute/attributor.js';
import { originOfCall } from './call-origin.js';
import { stepInputs } from '../features/inputs.js';

type Message = Record<string, unknown>;

/** A customer-service run: the customer gives an order id, the agent looks it up, the tool fails. */
function lookup(customer: string, args: Record<string, string>, more: Message[] = []): Message[] {
  return [
    { role: 'system', content: 'You help customers return delivered orders.' },
    { role: 'user', content: 'Hi, I want to return the lamp from my order.' },
    { role: 'assistant', content: 'Sure. What is the order id, and your name?' },
    { role: 'user', content: customer },
    ...more,
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'c1',
          type: 'function',
          function: { name: 'get_order_details', arguments: JSON.stringify(args) },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'Error: order not found' },
    { role: 'assistant', content: 'I could not find that order. Could you check the id?' },
    { role: 'user', content: 'It is right. Just do the return please.' },
    { role: 'assistant', content: 'I am sorry, I cannot process a return without a valid order.' },
  ];
}

const read = async (history: Message[]): Promise<Trace> =>
  (await importTraceText(JSON.stringify({ history }), 'run.json'))[0]!;
const call = (trace: Trace) => trace.steps.findIndex((step) => step.toolCalls?.length);
/** The steps the offline scorer may name, as the attributor passes them. */
const blamable = (trace: Trace) => {
  const { mask } = stepInputs(trace);
  return (step: number) => mask[step]!;
};

describe('where a failing call came from', () => {
  it("names the customer's turn whose order id a failing call passes on", async () => {
    const trace = await read(
      lookup("It's order #W7781023, Mei Kovacs.", { order_id: '#W7781023', name: 'Mei Kovacs' }),
    );
    const result = attributeWithModel(trace, loadOfflineModel());
    assert.equal(result.agent, 'user');
    assert.equal(result.step, 3);
    assert.match(
      result.reason,
      /^user at step 3: it first writes w7781023, which assistant's tool call at step 4 passes on, and the output that follows rejects that call\. Evidence: "It's order #W7781023, Mei Kovacs\." \/ step 5 \(get_order_details\): "Error: order not found"$/,
    );
    assert.deepEqual(
      result.evidence?.map((entry) => entry.step),
      [3, 5],
    );
  });

  it('keeps the blame with a caller that mistyped a figure or a name', async () => {
    const model = loadOfflineModel();
    const [run] = await loadTraces(join(FIXTURES, 'formats/tau-bench-results.json'));
    // The customer said zip 28236; the agent looked up 28263.
    assert.deepEqual(
      [attributeWithModel(run!, model).agent, attributeWithModel(run!, model).step],
      ['assistant', 4],
    );
    const misspelt = await read(
      lookup("It's order #W7781023, Mei Kovacs.", { order_id: '#W7781023', name: 'Mei Kovac' }),
    );
    assert.equal(originOfCall(misspelt, call(misspelt), blamable(misspelt)), undefined);
  });

  it('traces a figure to another agent, not to a tool output or the task', async () => {
    const relayed = await read([
      { role: 'user', content: 'Refund the duplicate charge.' },
      {
        role: 'assistant',
        name: 'Planner',
        content: 'The duplicate charge is ch_2291; refund it.',
      },
      ...lookup('ok', { charge_id: 'ch_2291' }).slice(4),
    ]);
    assert.deepEqual(originOfCall(relayed, call(relayed), blamable(relayed))?.step, 1);

    const fromTool = await read([
      { role: 'user', content: 'Refund the duplicate charge.' },
      { role: 'assistant', name: 'Planner', content: 'Let me list the charges.' },
      { role: 'tool', name: 'list_charges', content: '["ch_2291"]' },
      ...lookup('ok', { charge_id: 'ch_2291' }).slice(4),
    ]);
    assert.equal(originOfCall(fromTool, call(fromTool), blamable(fromTool)), undefined);

    const fromTask = await read([
      { role: 'user', content: 'Refund charge ch_2291.' },
      ...lookup('ok', { charge_id: 'ch_2291' }).slice(4),
    ]);
    assert.equal(originOfCall(fromTask, call(fromTask), blamable(fromTask)), undefined);
  });

  it('names no origin when the figures come from two speakers', async () => {
    const trace = await read(
      lookup("It's order #W7781023.", { order_id: '#W7781023', zip: '28236' }, [
        { role: 'assistant', name: 'Helper', content: 'Their zip is 28236.' },
      ]),
    );
    assert.equal(originOfCall(trace, call(trace), blamable(trace)), undefined);
  });
});
