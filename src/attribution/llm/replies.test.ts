/** Every reply form docs/PROTOCOL.md accepts, and the forms that used to be misread. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../../trace/build-trace.js';
import {
  extractJsonObject,
  modesOfReply,
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
    // Past any number of code blocks quoted before it.
    const code = `${'if (ready) { run(); }\n'.repeat(500)}{"x": 1}`;
    assert.deepEqual(extractJsonObject(code), { x: 1 });
  });

  it('gives up on a reply of endless unclosed braces instead of reading it for minutes', () => {
    // Each brace would be read to the end: quadratic, about 100 seconds here without a bound (20,000 braces took 4 s).
    const stuck = `${'{'.repeat(100_000)}{"x": 1}`;
    assert.equal(extractJsonObject(stuck), undefined);
  });

  it('reads replies padded with long runs of spaces or blank lines without backtracking for minutes', () => {
    // Patterns such as `\s*\**\s*` split a run of spaces every possible way before they fail, and
    // a line pattern opening with `\W*` read on across every blank line below it: 20,000 spaces
    // took half a second and 40,000 blank lines two; 100,000 would take most of a minute.
    const spaces = ' '.repeat(100_000);
    assert.equal(parseAttributionReply(`Agent${spaces}x`, trace), undefined);
    assert.equal(parseVerdictReply(`${spaces}maybe`), undefined);
    assert.deepEqual(
      parseAttributionReply(`Agent: Calculator${spaces}\nStep: 2\nReason: wrong product`, trace),
      calculatorAtTwo('wrong product'),
    );
    const blank = '\n'.repeat(100_000);
    assert.deepEqual(
      parseAttributionReply(`Agent: Calculator\nStep: 2\nReason: wrong product${blank}x`, trace),
      calculatorAtTwo(`wrong product${blank}x`.trim()),
    );
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

describe('failure modes in attribution replies', () => {
  const trace = buildTrace({
    id: 't',
    format: 'test',
    steps: [
      { speaker: 'Planner', content: 'plan' },
      { speaker: 'Coder', content: 'code' },
    ],
  });

  it('reads codes, names and Aegis-style pairs, once each, dropping unknown codes', () => {
    assert.deepEqual(modesOfReply(['FM-1.3', '1.3', '2.6 Reasoning-action mismatch', '7.1', 3]), [
      '1.3',
      '2.6',
    ]);
    assert.deepEqual(
      modesOfReply(undefined, [
        { agent: 'Coder', modes: ['FM-2.3'] },
        { agent_name: 'Planner', fault_modes: ['3.2'] },
      ]),
      ['2.3', '3.2'],
    );
  });

  it('reads modes from JSON and from the text format, and leaves them out when not asked', () => {
    assert.deepEqual(
      parseAttributionReply('{"agent": "Coder", "step": 1, "reason": "r", "modes": []}', trace)
        ?.modes,
      [],
    );
    const text = parseAttributionReply(
      'Agent Name: Coder\nStep Number: 1\nReason for Mistake: wrong loop\nModes: FM-1.3, 3.3',
      trace,
    );
    assert.deepEqual(text?.modes, ['1.3', '3.3']);
    assert.equal(text?.reason, 'wrong loop');
    assert.equal(
      parseAttributionReply('{"agent": "Coder", "step": 1, "reason": "r"}', trace)?.modes,
      undefined,
    );
  });
});
