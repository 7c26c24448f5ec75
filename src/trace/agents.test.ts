import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from './build-trace.js';
import {
  blamableSteps,
  canonicalAgentName,
  matchAgentName,
  roleOfSpeaker,
  sameAgent,
} from './agents.js';

describe('agent names', () => {
  it('folds Magentic-One speakers onto the agent', () => {
    assert.equal(canonicalAgentName('Orchestrator (thought)'), 'Orchestrator');
    assert.equal(canonicalAgentName('Orchestrator (-> WebSurfer)'), 'Orchestrator');
    assert.equal(canonicalAgentName('WebSurfer'), 'WebSurfer');
  });

  it(
    'reads hostile names in time linear in their length, and cuts them',
    { timeout: 20_000 },
    () => {
      const spaces = ' '.repeat(1_000_000);
      for (const name of [`A${spaces}B`, `A${spaces}(x`, `A${spaces}(x)y)`, '('.repeat(1_000_000)])
        assert.ok(canonicalAgentName(name).length <= 200);
      assert.equal(canonicalAgentName(`Orchestrator${' '.repeat(10)}(thought)`), 'Orchestrator');
      assert.equal(
        canonicalAgentName('f(a(b))'),
        'f(a(b))',
        'a suffix with parentheses inside stays',
      );
      assert.equal(canonicalAgentName('(thought)'), '(thought)');
    },
  );

  it('tells humans, tools and agents apart', () => {
    assert.equal(roleOfSpeaker('human'), 'human');
    assert.equal(roleOfSpeaker('Computer_terminal'), 'tool');
    assert.equal(roleOfSpeaker('ComputerTerminal'), 'tool');
    assert.equal(roleOfSpeaker('Verification_Expert'), 'agent');
    assert.equal(roleOfSpeaker('Orchestrator (thought)'), 'agent');
    assert.equal(roleOfSpeaker('chat_manager'), 'system', "AG2's group chat manager");
  });

  it("maps a label's spelling onto the trace's", () => {
    assert.equal(matchAgentName('Websurfer', ['Orchestrator', 'WebSurfer']), 'WebSurfer');
    assert.equal(matchAgentName('Orchestrator (thought)', ['Orchestrator']), 'Orchestrator');
    assert.ok(sameAgent('web_surfer', 'WebSurfer'));
    assert.ok(!sameAgent('WebSurfer', 'FileSurfer'));
  });

  it("may blame the team and a person's own later turns, never the task, the framework or a relay", () => {
    const trace = buildTrace({
      id: 'debate',
      format: 'test',
      steps: [
        { speaker: 'system', content: 'You are a helpful team.' },
        { speaker: 'human', content: 'What is 2 + 2? Answer with a number.' },
        { speaker: 'Solver', content: 'I think the answer is 5 because of carrying.' },
        {
          speaker: 'human',
          content: 'Others said: I think the answer is 5 because of carrying. Update?',
        },
        { speaker: 'human', content: 'Actually I meant 2 + 3, sorry.' },
        { speaker: 'Solver', content: '5' },
      ],
    });
    assert.deepEqual(blamableSteps(trace), [2, 4, 5]);
    // An opening template that ends with the task posts it; one that goes on to answer does not.
    const question = 'What is the sum of 17 and 25? Give a number.';
    const opened = (opening: string) =>
      buildTrace({
        id: 'mathchat',
        format: 'test',
        question,
        steps: [
          { speaker: 'mathproxyagent', content: opening },
          { speaker: 'assistant', content: '17 + 25 = 42' },
        ],
      });
    const template = `Let's use Python to solve a math problem.\nPut the answer in \\boxed{}.\n\nProblem:\n${question}\n`;
    assert.deepEqual(blamableSteps(opened(template)), [1]);
    assert.deepEqual(blamableSteps(opened(`${question} It is 43.`)), [0, 1]);
    // Only the end is read, however long the template and however it spaces the task.
    const spaced = question.replaceAll(' ', ' \n\t ');
    assert.deepEqual(blamableSteps(opened(`${'Rules. '.repeat(2_000)}Problem:\n${spaced}`)), [1]);
    assert.deepEqual(blamableSteps(opened(`${'   '.repeat(100)}${spaced}  `)), [1]);
    assert.deepEqual(blamableSteps(opened(`${question}${'\n'.repeat(500)}Answer: 43`)), [0, 1]);
    assert.deepEqual(
      blamableSteps(
        buildTrace({ id: 'x', format: 'test', steps: [{ speaker: 'human', content: 'hi' }] }),
      ),
      [],
    );
  });
});
