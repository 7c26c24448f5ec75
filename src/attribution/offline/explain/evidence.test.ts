/** The reason's quotes: what a reason quotes and what it never does. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../../../../test/paths.js';
import { buildTrace } from '../../../trace/build-trace.js';
import { loadTrace } from '../../../trace/load.js';
import { attributeWithModel, loadOfflineModel } from '../attribute/attributor.js';
import { explainStep } from './evidence.js';
import { computeFeatures } from '../features/features.js';
import { FEATURE_NAMES, type FeatureName } from '../features/feature-names.js';
import type { LinearScorer } from '../scores/scoring.js';

describe('evidence', () => {
  it('never quotes the task statement or the roster', async () => {
    const trace = await loadTrace(join(ROOT, 'examples/who-and-when-hc-6.json'));
    const { reason } = attributeWithModel(trace, loadOfflineModel());
    assert.doesNotMatch(reason, /ComputerTerminal: A computer terminal/);
    assert.ok(!reason.includes(trace.question!.trim()), reason);
  });

  it('says a step writes code only where a code block opens a line', async () => {
    const trace = await loadTrace(join(ROOT, 'examples/who-and-when-hc-6.json'));
    const reasonFor = (content: string) => {
      const steps = trace.steps.map((step, index) => (index === 1 ? { ...step, content } : step));
      const rows = computeFeatures({ ...trace, steps });
      return explainStep({ ...trace, steps }, 1, rows[1]!, weighingOnly('has_code')).reason;
    };
    // The plan's roster mentions "```python code blocks": no code is written there.
    assert.doesNotMatch(reasonFor(trace.steps[1]!.content), /writes the code/);
    assert.match(reasonFor('Run this:\n```python\nprint(2 + 2)\n```'), /writes the code/);
  });

  it("quotes neither a framework's preamble, the task run on, nor a paraphrase of it", () => {
    const question =
      'What time was the Tri-Rail train scheduled to arrive in Pompano Beach on May 27, 2019?';
    const trace = buildTrace({
      id: 'preamble',
      format: 'test',
      question,
      steps: [
        { speaker: 'human', content: question },
        {
          speaker: 'Schedule_Expert',
          content: [
            'You are given: (1) a task and advises from your manager with a specific plan and (2) a general task.',
            '# General Task',
            `${question} Please solve the problem carefully.`,
            '## Task description',
            'Determine the time the Tri-Rail train was scheduled to arrive in Pompano Beach on May 27, 2019.',
            'The train arrived at 5:40 PM according to my notes.',
          ].join('\n'),
        },
      ],
    });
    const figures = weighingOnly('novel_numbers_log');
    const { evidence } = explainStep(trace, 1, computeFeatures(trace)[1]!, figures);
    assert.deepEqual(evidence, [
      { step: 1, quote: 'The train arrived at 5:40 PM according to my notes.' },
    ]);
  });

  it('quotes the line that brings a new figure, and claims none only a log or a path has', () => {
    const question = 'How many moons did Mars have in 2021?';
    const stepsWith = (content: string) =>
      buildTrace({
        id: 'figures',
        format: 'test',
        question,
        steps: [
          { speaker: 'human', content: question },
          { speaker: 'Planner', content: 'Look up the moons; the year is 2021.' },
          { speaker: 'Astronomer', content },
        ],
      });
    const figures = weighingOnly('novel_numbers_log');
    const explain = (content: string) => {
      const trace = stepsWith(content);
      return explainStep(trace, 2, computeFeatures(trace)[2]!, figures);
    };
    // The task's year is restated first; the quote is the line that brings the count.
    const counted = explain('In 2021 the question still stands.\nMars has 3 moons.');
    assert.match(counted.reason, /it introduces new figures/);
    assert.deepEqual(counted.evidence, [{ step: 2, quote: 'Mars has 3 moons.' }]);
    // Figures of a runtime warning and of a path are counted by the features, not claimed.
    const logged = explain(
      [
        '/usr/lib/python3.11/site-packages/agents/run.py:216: UserWarning: model gpt-4o-2024-08-06',
        'See /srv/data/2019/moons.csv for the list.',
        'Mars has moons.',
      ].join('\n'),
    );
    assert.doesNotMatch(logged.reason, /new figures/);
    assert.ok(
      logged.evidence.every(({ quote }) => !quote.includes('UserWarning')),
      logged.reason,
    );
    // In a long line the quote is cut around the new figure, not before it.
    const sentence = 'The survey of the moons of the red planet went on. ';
    const quote = explain(`${sentence.repeat(5)}It has 3.`).evidence[0]?.quote ?? '';
    assert.ok(quote.startsWith('...') && quote.endsWith('It has 3.'), quote);
    assert.ok(quote.length <= 160, quote);
  });

  it('quotes the correction from the next agent turn, past the tool output between', () => {
    const trace = buildTrace({
      id: 'corrected',
      format: 'test',
      question: 'What is 17 times 23?',
      steps: [
        { speaker: 'human', content: 'What is 17 times 23?' },
        { speaker: 'Solver', content: 'I will compute it.\nprint(17 * 32)' },
        { speaker: 'executor', role: 'tool', content: 'Instead of waiting: 544' },
        {
          speaker: 'Checker',
          content: 'That is wrong: the code multiplies 17 by 32 instead of 23.',
        },
      ],
    });
    const corrected = weighingOnly('next_correction');
    const { reason, evidence } = explainStep(trace, 1, computeFeatures(trace)[1]!, corrected);
    assert.match(reason, /the next agent turn corrects it/);
    assert.deepEqual(evidence, [
      { step: 3, quote: 'That is wrong: the code multiplies 17 by 32 instead of 23.' },
    ]);
  });

  it('quotes a line that says something, not a docstring delimiter', () => {
    const trace = buildTrace({
      id: 'docstring',
      format: 'test',
      question: 'Write a function that joins words.',
      steps: [
        { speaker: 'human', content: 'Write a function that joins words.' },
        { speaker: 'Coder', content: '"""\nJoins a list of words with a comma.\n"""' },
      ],
    });
    const { evidence } = explainStep(trace, 1, computeFeatures(trace)[1]!, weighingOnly());
    assert.deepEqual(evidence, [{ step: 1, quote: 'Joins a list of words with a comma.' }]);
  });

  it('does not say a browsing step states figures without a tool', async () => {
    const trace = await loadTrace(join(ROOT, 'examples/who-and-when-hc-6.json'));
    const rows = computeFeatures(trace);
    const claims = weighingOnly('claim_without_tool');
    const reasonAt = (step: number) => explainStep(trace, step, rows[step]!, claims).reason;
    assert.match(trace.steps[4]!.content, /^I typed/);
    assert.doesNotMatch(reasonAt(4), /without running a tool/, 'WebSurfer reports its browser');
    assert.match(reasonAt(5), /without running a tool/, "the Orchestrator's ledger");
  });
});

/** The shipped step scorer weighing `feature` alone (nothing at all without one). */
function weighingOnly(feature?: FeatureName): LinearScorer {
  const { step } = loadOfflineModel();
  const weights = step.weights.map(() => 0);
  if (feature) weights[FEATURE_NAMES.indexOf(feature)] = 1;
  return { ...step, weights };
}
