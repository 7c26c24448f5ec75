import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operatorCatalog } from './operators.js';
import { parsePlan } from './plan.js';

const parse = (value: unknown) => parsePlan(value, 'plan.json', operatorCatalog);

test('a plan reads one target, a list, or {targets}; modes as FM-x.y or x.y', () => {
  const target = { agent: 'coder', occurrence: 2, mode: 'FM-2.6', operator: 'perturb-number' };
  const expected = { ...target, mode: '2.6', strategy: 'response-corruption' };
  assert.deepEqual(parse(target).targets, [expected]);
  assert.deepEqual(parse([target]).targets, [expected]);
  assert.deepEqual(parse({ targets: [{ ...target, mode: '2.6' }] }).targets, [expected]);
  assert.equal(
    parse({ agent: 'a', mode: '1.4', operator: 'drop-last-tool-result' }).targets[0]?.strategy,
    'prompt-injection',
  );
});

test('errors are one line naming the file and the field', () => {
  assert.throws(() => parse({ agent: 'a', mode: '9.9', operator: 'replace' }), {
    message: /^plan\.json: mode: "9\.9" is not a MAST mode/,
  });
  assert.throws(() => parse({ agent: 'a', mode: '2.6', operator: 'nope' }), {
    message: /^plan\.json: operator: unknown operator "nope"; choose one of replace, /,
  });
  assert.throws(() => parse({ agent: 'a', mode: '2.6', operator: 'replace', occurrence: 0 }), {
    message: /^plan\.json: occurrence: /,
  });
  assert.throws(
    () => parse({ agent: 'a', mode: '2.6', operator: 'replace', strategy: 'prompt-injection' }),
    { message: /^plan\.json: strategy: the operator replace is a response-corruption/ },
  );
});
