/** A tool's output may be the named step; the agent whose call it answers is named (issue 53). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../../../trace/build-trace.js';
import { attributeWithModel, loadOfflineModel } from '../attribute/attributor.js';
import { decode } from './decode.js';
import { regimeOf, type DecodingRegime } from './regimes.js';
import { predict } from '../scores/predict.js';
import { stepOwners } from './step-owner.js';

/** A Who&When-like run: an expert writes code, the terminal runs it and fails. */
const codeRun = () =>
  buildTrace({
    id: 'terminal',
    format: 'test',
    question: 'How many rows does the table have?',
    steps: [
      { speaker: 'user', content: 'How many rows does the table have?' },
      {
        speaker: 'Data_Expert',
        content: '```python\nimport pandas as pd\nprint(len(pd.read_csv("t.csv")))\n```',
      },
      {
        speaker: 'Computer_terminal',
        role: 'tool',
        content: 'exitcode: 1 (execution failed)\nCode output: FileNotFoundError: t.csv',
      },
      { speaker: '(no agent)', content: 'Calling the model for the next step.' },
      { speaker: 'Checker', content: 'The table has 120 rows. TERMINATE' },
    ],
  });

describe('step owners', () => {
  it("gives a tool's output to the agent whose call it answers, and a placeholder's step to no one", () => {
    const trace = codeRun();
    assert.deepEqual(stepOwners(trace, new Set(['Data_Expert', 'Checker'])), [
      undefined,
      'Data_Expert',
      'Data_Expert',
      undefined,
      'Checker',
    ]);
  });

  it("names the caller where a tool's output scores best", () => {
    const trace = codeRun();
    const regime: DecodingRegime = {
      name: 'familiar',
      familiar: true,
      agentWeight: 1,
      earliestShare: 1,
      rejectedShare: undefined,
      firstFailing: false,
    };
    const decision = decode(
      trace,
      {
        rows: trace.steps.map(() => []),
        stepProbabilities: [0, 0.2, 0.7, 0, 0.1],
        agents: [
          { agent: 'Data_Expert', probability: 0.6 },
          { agent: 'Checker', probability: 0.4 },
        ],
        speakers: [
          { agent: 'Data_Expert', probability: 0.4 },
          { agent: 'Computer_terminal', probability: 0.35 },
          { agent: 'Checker', probability: 0.25 },
        ],
      },
      regime,
    );
    assert.equal(decision.best.step, 2);
    assert.equal(decision.agent, 'Data_Expert');
    // The placeholder's step is never a candidate.
    assert.equal(decision.candidate(3), false);
  });

  it('names the caller wherever the named step or a candidate is a tool output', () => {
    const model = loadOfflineModel();
    const trace = codeRun();
    const prediction = predict(trace, model);
    // Whichever step the model names, the agent named answers for it and is never a tool.
    const decision = decode(trace, prediction, regimeOf(trace, prediction.rows, model));
    assert.equal(decision.agent, decision.owner(decision.best.step));
    const result = attributeWithModel(trace, model);
    assert.ok(['Data_Expert', 'Checker'].includes(result.agent!), result.agent!);
    for (const candidate of result.candidates ?? [])
      assert.ok(['Data_Expert', 'Checker'].includes(candidate.agent), candidate.agent);
    if (result.step === 2)
      assert.match(result.reason, /Computer_terminal's output for Data_Expert's call/);
  });
});
