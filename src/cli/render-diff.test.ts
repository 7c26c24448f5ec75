import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { diffTraces } from '../attribution/diverge/diff.js';
import { buildTrace, type DraftStep } from '../trace/build-trace.js';
import { renderDiff } from './render-diff.js';

const TASK = 'How many apples and pears does the shop have in stock in total?';
const run = (id: string, steps: DraftStep[]) =>
  buildTrace({ id, format: 'test', source: `${id}.json`, question: TASK, steps });

const passing: DraftStep[] = [
  { speaker: 'user', content: TASK },
  { speaker: 'Planner', content: 'Look up the stock of apples and pears, then add the counts.' },
  { speaker: 'Calculator', content: 'Apples 1,200 plus pears 340 makes 1,540 in total.' },
  { speaker: 'Reporter', content: 'The shop has 1,540 apples and pears in stock. TERMINATE' },
];

test('the row marked is the divergence, not an earlier inserted step that says nothing', () => {
  const failing: DraftStep[] = [
    passing[0]!,
    { speaker: 'Planner', content: '' },
    passing[1]!,
    { speaker: 'Clerk', content: 'I will also count the plums, which the task did not ask for.' },
    passing[2]!,
    passing[3]!,
  ];
  const failed = run('failed', failing);
  const passed = run('passed', passing);
  const diff = diffTraces(failed, passed);
  assert.equal(diff.divergence?.kind, 'inserted');
  assert.equal(diff.divergence?.failedStep, 3);
  assert.equal(diff.pairs[diff.divergencePair!]?.failed, 3);
  const marked = stripVTControlCharacters(renderDiff(diff, failed, passed))
    .split('\n')
    .filter((line) => line.startsWith('>'));
  assert.equal(marked.length, 1);
  assert.match(marked[0]!, /#3 Clerk/);
});
