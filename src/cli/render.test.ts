import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stripVTControlCharacters as plain } from 'node:util';
import type { Attribution } from '../attribution/method.js';
import type { Trace, TraceLabels } from '../trace/model.js';
import { renderAttribution, renderBatchSummary } from './render.js';

const answer = (agent: string | null, extra: Partial<Attribution> = {}): Attribution => ({
  agent,
  step: agent === null ? null : 0,
  reason: '',
  method: 'all-at-once',
  usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
  ...extra,
});

describe('the summary of several runs', () => {
  it('is left out for a single run', () => {
    assert.equal(renderBatchSummary([answer('Coder')]), undefined);
  });

  it('tallies the named agents, most often first, and the runs without an answer', () => {
    const summary = renderBatchSummary([
      answer('Planner'),
      answer('Coder', { familiar: false }),
      answer(null),
      answer('Coder'),
    ]);
    assert.equal(
      plain(summary ?? ''),
      [
        '4 runs',
        '  named   Coder 2, Planner 1, no answer 1',
        '  note    1 of them looks unlike the runs the offline model learned from: read those answers as guesses',
      ].join('\n'),
    );
  });

  it('adds up what the LLM calls spent, with a cost only where every run has one', () => {
    const spent = (costUsd?: number) =>
      answer('Coder', {
        usage: { calls: 2, inputTokens: 1000, outputTokens: 50, ...(costUsd ? { costUsd } : {}) },
      });
    const strip = (text?: string) =>
      plain(text ?? '')
        .split('\n')
        .at(-1);
    assert.equal(
      strip(renderBatchSummary([spent(0.01), spent(0.02)])),
      '  spent   4 calls, 2000 in / 100 out tokens, ~$0.0300',
    );
    assert.equal(
      strip(renderBatchSummary([spent(0.01), spent()])),
      '  spent   4 calls, 2000 in / 100 out tokens',
    );
  });
});

describe("the trace's own label", () => {
  const trace = (labels?: TraceLabels): Trace => ({
    id: 'run',
    format: 'messages',
    outcome: 'failure',
    steps: [{ index: 0, agent: 'Coder', speaker: 'Coder', role: 'agent', content: 'x = 1' }],
    agents: [{ name: 'Coder', role: 'agent', steps: 1 }],
    metadata: {},
    ...(labels ? { labels } : {}),
  });
  const labelLine = (labels?: TraceLabels) =>
    plain(renderAttribution('run.json', trace(labels), answer('Coder')))
      .split('\n')
      .find((line) => line.startsWith('  label'));

  it('names the agent and step, or the agents alone where no step is labelled', () => {
    assert.equal(labelLine({ agent: 'Coder', step: 0 }), '  label   Coder at step 0');
    assert.equal(labelLine({ agent: 'Coder' }), '  label   Coder');
    assert.equal(
      labelLine({ agent: 'Critic', agents: ['Critic', 'Judge'] }),
      '  label   Critic or Judge',
    );
    assert.equal(labelLine({ step: 0 }), '  label   step 0');
    assert.equal(labelLine(), undefined);
  });
});

describe('the modes listed', () => {
  const trace: Trace = {
    id: 'run',
    format: 'messages',
    outcome: 'failure',
    steps: [{ index: 0, agent: 'Coder', speaker: 'Coder', role: 'agent', content: 'x = 1' }],
    agents: [{ name: 'Coder', role: 'agent', steps: 1 }],
    metadata: {},
  };
  const mode = (code: string, shown?: boolean) => ({
    code,
    name: `mode ${code}`,
    definition: 'd.',
    fix: 'f.',
    confidence: 0.5,
    ...(shown === undefined ? {} : { shown }),
  });
  const modesLine = (result: Attribution, allModes = false) =>
    plain(renderAttribution('run.json', trace, result, { allModes }))
      .split('\n')
      .filter((line) => line.startsWith('  modes') || line.includes('by agent:'));

  it('are at most three per run and per agent by default, the shown ones; all with --all-modes', () => {
    const result = answer('Coder', {
      modes: [mode('1.3', true), mode('2.6', true), mode('1.1', false), mode('3.3', false)],
      agentModes: [
        {
          agent: 'Coder',
          modes: [mode('1.1', true), mode('1.2', true), mode('1.3', true), mode('2.6', false)],
        },
        { agent: 'Planner', modes: [mode('1.5', false)] },
      ],
    });
    assert.deepEqual(modesLine(result), [
      '  modes   1.3 mode 1.3 (50%), 2.6 mode 2.6 (50%) (2 more with --all-modes)',
      '          by agent: Coder: 1.1 (50%), 1.2 (50%), 1.3 (50%)',
    ]);
    assert.deepEqual(modesLine(result, true), [
      '  modes   1.3 mode 1.3 (50%), 2.6 mode 2.6 (50%), 1.1 mode 1.1 (50%), 3.3 mode 3.3 (50%)',
      '          by agent: Coder: 1.1 (50%), 1.2 (50%), 1.3 (50%), 2.6 (50%); Planner: 1.5 (50%)',
    ]);
  });

  it("are a method's first three where it marks none shown", () => {
    const result = answer('Coder', {
      modes: ['1.1', '1.2', '1.3', '2.6'].map((code) => mode(code)),
    });
    assert.deepEqual(modesLine(result), [
      '  modes   1.1 mode 1.1 (50%), 1.2 mode 1.2 (50%), 1.3 mode 1.3 (50%) (1 more with --all-modes)',
    ]);
  });

  it('leads an unfamiliar run with what to do, then the three most likely agents', () => {
    const lines = plain(
      renderAttribution(
        'run.json',
        trace,
        answer('Coder', {
          reason: 'It fails.',
          agentConfidence: 0.18,
          confidence: 0.04,
          familiar: false,
          confidenceBasis: 'unseen-systems',
          heldOutRange: [0.17, 0.9667],
          heldOutStepRange: [0.039, 0.393],
          agentCandidates: [
            { agent: 'Coder', confidence: 0.18 },
            { agent: 'Planner', confidence: 0.09 },
            { agent: 'Reviewer', confidence: 0.04 },
          ],
        }),
      ),
    ).split('\n');
    assert.deepEqual(lines.slice(1, 5), [
      '  guess   a guess on a system it was not trained on: `faultline verify` proves it by replay; 20 labelled runs (`faultline adapt` or `train --base`) make it yours',
      '  agents  Coder 18%, Planner 9%, Reviewer 4% (unseen systems 17–97% right)',
      '  step    0 (4%; unseen systems 4–39% right)',
      '  reason  It fails.',
    ]);
    assert.ok(!lines.some((line) => line.startsWith('  agent ')));
  });
});

describe('the next steps listed', () => {
  const trace: Trace = {
    id: 'run',
    format: 'messages',
    outcome: 'failure',
    steps: [0, 1, 2].map((index) => ({
      index,
      agent: 'Coder',
      speaker: 'Coder',
      role: 'agent' as const,
      content: `x = ${index}`,
    })),
    agents: [{ name: 'Coder', role: 'agent', steps: 3 }],
    metadata: {},
  };
  /** The "next" line of a verdict at step 1 with these candidates (step, or step and score). */
  const nextLine = (candidates: (number | [number, number])[], extra: Partial<Attribution> = {}) =>
    plain(
      renderAttribution(
        'run.json',
        trace,
        answer('Coder', {
          step: 1,
          candidates: candidates.map((entry) => {
            const [step, score] = typeof entry === 'number' ? [entry, 0.2] : entry;
            return { step, agent: 'Coder', score };
          }),
          ...extra,
        }),
      ),
    )
      .split('\n')
      .find((line) => line.startsWith('  next'));

  it('are the candidates besides the step named, whether or not the method lists that step', () => {
    // The offline method lists the named step first; spectrum and combined list the others only.
    assert.equal(nextLine([1, 2, 0]), '  next    step 2 Coder (20%), step 0 Coder (20%)');
    assert.equal(nextLine([2, 0]), '  next    step 2 Coder (20%), step 0 Coder (20%)');
    assert.equal(nextLine([1]), undefined);
  });

  it('states a figure above 0 that rounds to 0 as under 1%', () => {
    assert.equal(nextLine([[2, 0.0035]]), '  next    step 2 Coder (<1%)');
  });

  it("states a method's own scores as scores, not percents (spectrum, combined)", () => {
    assert.equal(
      nextLine(
        [
          [2, 0.35],
          [0, 0.0002],
        ],
        { candidateScale: 'score' },
      ),
      '  next    step 2 Coder (score 0.350), step 0 Coder (score <0.001)',
    );
  });
});
