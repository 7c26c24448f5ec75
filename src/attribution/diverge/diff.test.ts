import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UserError } from '../../errors.js';
import { buildTrace, type DraftStep } from '../../trace/build-trace.js';
import type { Trace } from '../../trace/model.js';
import { diffTraces } from './diff.js';
import { divergeMethod } from './method.js';
import { numbersIn, decisionOf } from './substance.js';

const TASK = 'How many apples and pears does the shop have in stock in total?';

/** A passing run: plan, a tool call and its output, a sum, a review, the answer. */
function passingSteps(): DraftStep[] {
  return [
    { speaker: 'user', content: TASK },
    {
      speaker: 'Planner',
      content: 'First look up the stock of apples and pears, then add the two counts together.',
    },
    {
      speaker: 'Clerk',
      content: 'Looking up the stock.',
      toolCalls: [
        { id: 'call_a1', name: 'stock_lookup', arguments: '{"items": ["apples", "pears"]}' },
      ],
    },
    { speaker: 'stock_lookup', role: 'tool', content: '{"apples": 1,200, "pears": 340}' },
    { speaker: 'Calculator', content: 'Apples 1,200 plus pears 340 makes 1,540 in total.' },
    { speaker: 'Reviewer', content: 'The sum is correct and matches the stock data. Approved.' },
    { speaker: 'Reporter', content: 'The shop has 1,540 apples and pears in stock. TERMINATE' },
  ];
}

/** A run of `steps`; `question` null for a run without a task. */
const run = (id: string, steps: DraftStep[], question: string | null = TASK): Trace =>
  buildTrace({
    id,
    format: 'test',
    source: `${id}.json`,
    ...(question ? { question } : {}),
    steps,
  });

describe('diff of a failed run against a passing one', () => {
  it('gives no divergence for identical runs', () => {
    const diff = diffTraces(run('failed', passingSteps()), run('passed', passingSteps()));
    assert.equal(diff.divergence, null);
    assert.equal(diff.counts.same, 7);
    assert.ok(diff.pairs.every((pair) => pair.status === 'same' && pair.failed === pair.passed));
  });

  it('gives no divergence where the wording alone changes, or only ids and timings', () => {
    const steps = passingSteps();
    steps[1] = {
      speaker: 'Planner',
      content: 'We should look up how many apples and pears there are, then add both counts.',
    };
    steps[2] = {
      ...steps[2]!,
      toolCalls: [
        { id: 'call_zz9', name: 'stock_lookup', arguments: '{ "items": ["apples","pears"] }' },
      ],
    };
    steps[5] = {
      speaker: 'Reviewer',
      content: 'That sum is correct: approved (checked in 0.42 s).',
    };
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence, null, JSON.stringify(diff.divergence));
    // The planner, the call (its arguments spaced otherwise) and the review.
    assert.equal(diff.counts.reworded, 3);
  });

  it('names the step whose number changed, quoting both sides', () => {
    const steps = passingSteps();
    steps[4] = {
      speaker: 'Calculator',
      content: 'Apples 1,200 plus pears 340 makes 1,450 in total.',
    };
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence?.failedStep, 4);
    assert.equal(diff.divergence?.passedStep, 4);
    assert.equal(diff.divergence?.agent, 'Calculator');
    assert.deepEqual(diff.divergence?.aspects, ['numbers']);
    assert.match(diff.divergence.detail, /1450 where the passing run has 1540/);
    assert.match(diff.divergence.failed, /1,450/);
    assert.match(diff.divergence.passed, /1,540/);
  });

  it('names the step that dropped its tool call, kept as a step', () => {
    const steps = passingSteps();
    steps[2] = { speaker: 'Clerk', content: 'Looking up the stock.' };
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence?.failedStep, 2);
    assert.equal(diff.divergence?.kind, 'changed');
    assert.ok(diff.divergence?.aspects.includes('tool calls'));
    assert.equal(diff.divergence?.failed, '(no tool call)');
    assert.match(diff.divergence.passed, /stock_lookup/);
  });

  it('names the step standing where a dropped tool call and its output were', () => {
    const steps = passingSteps();
    steps.splice(2, 2);
    steps[2] = {
      speaker: 'Calculator',
      content: 'Apples 1,000 plus pears 300 makes 1,300 in total.',
    };
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence?.kind, 'missing');
    assert.equal(diff.divergence?.failedStep, 2);
    assert.equal(diff.divergence?.passedStep, 2);
    assert.match(diff.divergence.detail, /stock_lookup/);
    assert.deepEqual(
      diff.pairs.map((pair) => pair.status),
      ['same', 'same', 'missing', 'missing', 'changed', 'same', 'same'],
    );
  });

  it('names an inserted repeat of a step, not the original', () => {
    const steps = passingSteps();
    steps.splice(3, 0, { ...steps[2]! });
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence?.kind, 'inserted');
    assert.equal(diff.divergence?.failedStep, 3);
    assert.equal(diff.divergence?.passedStep, null);
    assert.match(diff.divergence.detail, /repeats step 2/);
    assert.equal(diff.counts.inserted, 1);
    assert.equal(diff.counts.same, 7);
  });

  it('names an inserted repeat further on, after a reworded step', () => {
    const steps = passingSteps();
    steps[1] = {
      speaker: 'Planner',
      content: 'Look up apples and pears in stock, then add both counts together.',
    };
    steps.splice(5, 0, { speaker: 'Calculator', content: steps[4]!.content });
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence?.failedStep, 5);
    assert.equal(diff.divergence?.kind, 'inserted');
  });

  it('names a reversed decision', () => {
    const steps = passingSteps();
    steps[5] = {
      speaker: 'Reviewer',
      content: 'The sum is not correct and does not match the stock data. Rejected.',
    };
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence?.failedStep, 5);
    assert.deepEqual(diff.divergence?.aspects, ['decision']);
  });

  it('names a review replaced by other words: its approval is gone', () => {
    const steps = passingSteps();
    steps[5] = { speaker: 'Reviewer', content: steps[4]!.content };
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence?.failedStep, 5);
    assert.match(diff.divergence.detail, /makes no decision where the passing run accepts/);
  });

  it('keeps a decision word that comes and goes in an otherwise alike step as wording', () => {
    const steps = passingSteps();
    steps[4] = {
      speaker: 'Calculator',
      content: 'Correct: apples 1,200 plus pears 340 makes 1,540 in total.',
    };
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence, null, JSON.stringify(diff.divergence));
  });

  it('names a step cut short, and one that gives no final answer where the passing run does', () => {
    const plan = (content: string): DraftStep[] => {
      const steps = passingSteps();
      steps[1] = { speaker: 'Planner', content };
      return steps;
    };
    const full =
      '1. Look up the stock of apples and pears.\n2. Add the two counts.\n3. Report the sum.';
    const cut = diffTraces(
      run('failed', plan('1. Look up the stock of apples and pears.')),
      run('passed', plan(full)),
    );
    assert.equal(cut.divergence?.failedStep, 1);
    assert.match(cut.divergence.detail, /stops short: 2 of the passing step's 3 lines are missing/);
    assert.equal(cut.divergence.passed, '2. Add the two counts.');

    const answered = passingSteps();
    answered[6] = { speaker: 'Reporter', content: 'FINAL ANSWER: 1,540' };
    const unanswered = passingSteps();
    unanswered[6] = { speaker: 'Reporter', content: 'The total is 1,540.' };
    const diff = diffTraces(run('failed', unanswered), run('passed', answered));
    assert.equal(diff.divergence?.failedStep, 6);
    assert.match(diff.divergence.detail, /goes on where the passing run ends/);
  });

  it('names a changed tool argument', () => {
    const steps = passingSteps();
    steps[2] = {
      ...steps[2]!,
      toolCalls: [{ name: 'stock_lookup', arguments: '{"items": ["apples"]}' }],
    };
    const diff = diffTraces(run('failed', steps), run('passed', passingSteps()));
    assert.equal(diff.divergence?.failedStep, 2);
    assert.match(
      diff.divergence.detail,
      /a tool call changed: stock_lookup\(\{"items":\["apples"\]\}\)/,
    );
  });

  it('names a step that records an error the passing run does not, and one that stops early', () => {
    const failing = passingSteps();
    failing[3] = { ...failing[3]!, error: 'lookup timed out' };
    const errored = diffTraces(run('failed', failing), run('passed', passingSteps()));
    assert.equal(errored.divergence?.failedStep, 3);
    assert.ok(errored.divergence?.aspects.includes('error'));
    const stopping = passingSteps();
    stopping[5] = {
      speaker: 'Reviewer',
      content: 'The sum is correct and matches the stock data. Approved. TERMINATE',
    };
    const stopped = diffTraces(run('failed', stopping), run('passed', passingSteps()));
    assert.equal(stopped.divergence?.failedStep, 5);
    assert.match(stopped.divergence.detail, /ends the run where the passing run goes on/);
  });

  it('compares a task with the first step of a run that names none', () => {
    assert.equal(
      diffTraces(run('failed', passingSteps()), run('passed', passingSteps(), null)).divergence,
      null,
    );
  });

  it('refuses runs of different tasks, naming both files', () => {
    const other = run('other', passingSteps(), 'Write a haiku about the autumn rain over Kyoto.');
    assert.throws(
      () => diffTraces(run('failed', passingSteps()), other),
      (error: unknown) =>
        error instanceof UserError &&
        /^failed\.json and other\.json are runs of different tasks \("How many apples/.test(
          error.message,
        ) &&
        !error.message.includes('\n'),
    );
  });

  it('compares the first steps of runs without a task', () => {
    const failed = run('failed', passingSteps(), null);
    const other = passingSteps();
    other[0] = {
      speaker: 'user',
      content: 'Translate this poem about the sea into French, please.',
    };
    assert.throws(() => diffTraces(failed, run('other', other, null)), UserError);
    assert.equal(diffTraces(failed, run('passed', passingSteps(), null)).divergence, null);
  });

  it('aligns 2,000-step runs in well under a second, and long runs within a band', () => {
    const long = (count: number, changeAt: number) =>
      Array.from({ length: count }, (_, index): DraftStep => ({
        speaker: ['Planner', 'Coder', 'Reviewer'][index % 3]!,
        content: `Step ${index}: the value of item ${index} is ${index === changeAt ? 7 : index * 3}, checked against the ledger row ${index}.`,
      }));
    // Processor time, not wall time: a busy machine must not fail the test.
    const started = process.cpuUsage();
    const diff = diffTraces(run('failed', long(2000, 1500)), run('passed', long(2000, -1)));
    const spent = process.cpuUsage(started).user / 1000;
    assert.ok(spent < 1000, `took ${spent} ms`);
    assert.equal(diff.divergence?.failedStep, 1500);
    assert.equal(diff.banded, false);
    // Every step different from the other run's: the whole table would be 4 million cells.
    const shifted = long(2000, -1).map((step) => ({ ...step, content: `${step.content} (again)` }));
    const all = long(2100, -1);
    const banded = diffTraces(run('failed', all), run('passed', shifted), { maxCells: 200_000 });
    assert.equal(banded.banded, true);
    assert.equal(banded.pairs.filter((pair) => pair.failed !== null).length, 2100);
    assert.equal(banded.pairs.filter((pair) => pair.passed !== null).length, 2000);
  });
});

describe('what counts as substance', () => {
  it('reads figures without ids, timestamps, timings or list numbers', () => {
    assert.deepEqual(
      numbersIn(
        '1. Total: 1,540.50 (up 5%)\nrun_8f3a2b at 2024-05-01T10:00:00Z took 0.3 s, id 3f2a9c1b7d4e5f60',
      ),
      ['1540.5', '5%'],
    );
  });

  it('reads decisions, negation included', () => {
    assert.equal(decisionOf('The answer is correct. Approved.'), 1);
    assert.equal(decisionOf('This is not correct.'), -1);
    assert.equal(decisionOf('No.'), -1);
    assert.equal(decisionOf('Let me think about it.'), 0);
  });
});

describe('the diverge method', () => {
  it('refuses to run without a passing run', async () => {
    await assert.rejects(
      divergeMethod.attribute(run('failed', passingSteps())),
      (error: unknown) => error instanceof UserError && /--ref PASSED/.test(error.message),
    );
  });

  it('names the diverging step and agent, quoting both sides', async () => {
    const steps = passingSteps();
    steps[4] = {
      speaker: 'Calculator',
      content: 'Apples 1,200 plus pears 340 makes 1,450 in total.',
    };
    const result = await divergeMethod.attribute(run('failed', steps), {
      reference: run('passed', passingSteps()),
    });
    assert.equal(result.agent, 'Calculator');
    assert.equal(result.step, 4);
    assert.equal(result.method, 'diverge');
    assert.match(result.reason, /departs from passed\.json at step 4 \(Calculator\)/);
    assert.match(result.reason, /Failed: ".*1,450.*" \/ passing run, step 4: ".*1,540.*"/);
    assert.equal(result.divergence?.failedStep, 4);
    assert.deepEqual(result.evidence, [{ step: 4, quote: result.divergence.failed }]);
  });

  it('answers no divergence for identical runs', async () => {
    const result = await divergeMethod.attribute(run('failed', passingSteps()), {
      reference: run('passed', passingSteps()),
    });
    assert.equal(result.agent, null);
    assert.equal(result.step, null);
    assert.match(result.reason, /^No divergence/);
  });
});
