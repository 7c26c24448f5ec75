/** Every reply form docs/PROTOCOL.md accepts, and the forms that used to be misread. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../../trace/build-trace.js';
import {
  extractJsonObject,
  parseAttributionReply,
  parseHalfReply,
  parseVerdictReply,
} from './replies.js';

const trace = buildTrace({
  id: 'replies',
  format: 'test',
  steps: [
    { speaker: 'human', content: 'task' },
    { speaker: 'Planner', content: 'plan' },
    { speaker: 'Calculator', content: '17 * 23 = 381' },
  ],
});
const calculatorAtTwo = (reason: string) => ({ agent: 'Calculator', step: 2, reason });

describe('reading attribution replies', () => {
  it('reads JSON, fenced or in prose, with a step as a number or a digit string', () => {
    const expected = calculatorAtTwo('wrong product');
    for (const reply of [
      '{"agent": "Calculator", "step": 2, "reason": "wrong product"}',
      'Here it is:\n```json\n{"agent": "Calculator", "step": "2", "reason": "wrong product"}\n```',
      'The {hard} part: {"agent": "calculator", "step": 2, "reason": "wrong product"} done.',
    ])
      assert.deepEqual(parseAttributionReply(reply, trace), expected, reply);
  });

  it("reads the paper's text format, on separate lines or one, bold or not", () => {
    for (const reply of [
      'Agent Name: Calculator\nStep Number: 2\nReason for Mistake: wrong product',
      'Agent: Calculator, Step: 2, Reason: wrong product',
      '**Agent Name:** Calculator\n**Step Number:** 2\n**Reason for Mistake:** wrong product',
      '**Agent Name**: Calculator\n**Step Number**: 2\n**Reason for Mistake**: wrong product',
    ])
      assert.deepEqual(
        parseAttributionReply(reply, trace),
        calculatorAtTwo('wrong product'),
        reply,
      );
  });

  it('refuses a step outside the log and a reply with no step', () => {
    assert.equal(parseAttributionReply('{"agent": "Calculator", "step": 9}', trace), undefined);
    assert.equal(parseAttributionReply('Agent Name: Calculator', trace), undefined);
  });

  it('finds the first JSON object past braces in the prose', () => {
    assert.deepEqual(extractJsonObject('a {b} c {"x": "}"} d'), { x: '}' });
  });
});

describe('reading verdicts and halves', () => {
  it('reads yes and no, numbered or bold', () => {
    for (const [reply, error] of [
      ['Yes. The product is wrong.', true],
      ['1. Yes', true],
      ['**1. Yes** the product is wrong', true],
      ['**No**, the plan is fine', false],
      ['{"error": false, "reason": "fine"}', false],
    ] as const)
      assert.equal(parseVerdictReply(reply)?.error, error, reply);
    assert.equal(parseVerdictReply('Maybe.'), undefined);
  });

  it('reads the earlier or later half in any case, and refuses both, neither or upper/lower', () => {
    assert.equal(parseHalfReply('{"half": "Earlier", "reason": "x"}')?.half, 'earlier');
    assert.equal(parseHalfReply('It is in the later half.')?.half, 'later');
    assert.equal(parseHalfReply('The first half, clearly.')?.half, 'earlier');
    assert.equal(parseHalfReply('the earlier half or the later half'), undefined);
    assert.equal(parseHalfReply('no idea'), undefined);
    assert.equal(parseHalfReply('the upper half'), undefined, 'ambiguous: retried, not guessed');
    assert.equal(parseHalfReply('{"half": "upper"}'), undefined);
  });
});
