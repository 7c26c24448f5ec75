/** Each feature family on a small run whose signals are known, and the families' coverage. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../../../trace/build-trace.js';
import type { Trace } from '../../../trace/model.js';
import { AGENT_FEATURE_NAMES, computeAgentFeatures } from './agent-features.js';
import { FEATURE_FAMILIES, type FeatureValues } from './feature-families.js';
import { FEATURE_NAMES } from './feature-names.js';
import { featuresAndMask } from './features.js';
import { runFactsOf } from './run-facts.js';
import { hasCode } from './text-signals.js';

const trace = buildTrace({
  id: 'families',
  format: 'test',
  question: 'What is 17 * 23?',
  groundTruth: '391',
  steps: [
    { speaker: 'human', content: 'What is 17 * 23?' },
    { speaker: 'Orchestrator (-> Coder)', content: 'Plan: Coder computes the product.' },
    { speaker: 'Coder', content: '```python\nprint(17 * 23)\n```' },
    { speaker: 'Computer_terminal', content: 'exitcode: 1 (execution failed)\nTraceback' },
    { speaker: 'Coder', content: 'I cannot run code, so the product is 381.' },
    { speaker: 'Verifier', content: 'I have verified it: 381. TERMINATE' },
  ],
});

type Family = keyof typeof FEATURE_FAMILIES;

/** What one family writes for one step of a trace. */
function valuesOf(family: Family, index: number, of: Trace = trace): Partial<FeatureValues> {
  const run = runFactsOf(of);
  const fact = run.facts[index]!;
  const out: Partial<FeatureValues> = {};
  FEATURE_FAMILIES[family](
    {
      index,
      step: of.steps[index]!,
      steps: of.steps,
      fact,
      state: run.states[index]!,
      run,
      code: hasCode(fact.text),
    },
    out as FeatureValues,
  );
  return out;
}

describe('feature families', () => {
  it('write every feature exactly once between them', () => {
    const written = (Object.keys(FEATURE_FAMILIES) as Family[]).flatMap((family) =>
      Object.keys(valuesOf(family, 1)),
    );
    assert.equal(written.length, new Set(written).size, 'no feature is written by two families');
    assert.deepEqual([...written].sort(), [...FEATURE_NAMES].sort());
  });

  it('position: place in the run and in the speaker’s turns', () => {
    const second = valuesOf('position', 4);
    assert.equal(second.pos_rel, 4 / 5);
    assert.equal(second.agent_turn_1, 1, "the Coder's second turn");
    assert.equal(second.actor_rank_2, 1, 'the third agent step');
    assert.equal(valuesOf('position', 1).first_actor, 1);
    assert.equal(valuesOf('position', 5).last_substantive_step, 1);
  });

  it('speaker: role, name family, addressing and activity', () => {
    assert.equal(valuesOf('speaker', 2).directed_here, 1, 'the orchestrator addressed the Coder');
    assert.equal(valuesOf('speaker', 1).speaker_directive, 1);
    assert.equal(valuesOf('speaker', 1).kind_orchestrator, 1);
    assert.equal(valuesOf('speaker', 5).kind_verifier, 1);
    assert.equal(valuesOf('speaker', 3).role_tool, 1);
    assert.equal(valuesOf('speaker', 2).agent_most_active, 1);
  });

  it('content: code, numbers and termination', () => {
    assert.equal(valuesOf('content', 2).has_code, 1);
    assert.equal(valuesOf('content', 5).termination_only, 0.5);
    assert.equal(valuesOf('content', 1).short_content, 1);
  });

  it('phrases: what the agent says it does', () => {
    assert.equal(valuesOf('phrases', 4).inability, 1);
    assert.equal(valuesOf('phrases', 5).unsupported_claim, 1, 'claims a check after an agent turn');
    assert.equal(valuesOf('phrases', 2).inability, 0);
  });

  it('errors: failing output after code, and the first agent step after it', () => {
    const code = valuesOf('errors', 2);
    assert.equal(code.next_error, 1);
    assert.equal(code.code_then_failure, 1);
    assert.equal(code.before_first_error, 1);
    assert.equal(valuesOf('errors', 3).own_error_output, 1);
    assert.equal(valuesOf('errors', 4).first_after_first_error, 1);
    assert.equal(valuesOf('errors', 4).prev_error, 1);
  });

  it('repetition: overlap with earlier steps', () => {
    assert.equal(valuesOf('repetition', 0).similar_to_any_previous, 0);
    assert.ok(valuesOf('repetition', 5).similar_to_any_previous! > 0);
    assert.ok(valuesOf('repetition', 4).similar_to_own_previous! >= 0);
  });

  it('claims: who introduces the final claim, and whether the answer was seen', () => {
    const claim = valuesOf('claims', 4);
    assert.equal(claim.introduces_final_numbers, 1, '381 first appears here');
    assert.equal(claim.claim_after_failure, 1);
    assert.equal(valuesOf('claims', 5).introduces_final_numbers, 0);
    assert.equal(valuesOf('claims', 0).mentions_answer, 0);
  });

  it('reviews: the step before a stalled progress review', () => {
    const stalled = buildTrace({
      id: 'stall',
      format: 'test',
      steps: [
        { speaker: 'human', content: 'task' },
        { speaker: 'WebSurfer', content: 'I clicked the link.' },
        {
          speaker: 'Orchestrator (thought)',
          content: '{"is_progress_being_made": {"reason": "same page", "answer": false}}',
        },
      ],
    });
    assert.equal(valuesOf('reviews', 1, stalled).cause_of_first_stall, 1);
    assert.equal(valuesOf('reviews', 1, stalled).next_review_no_progress, 1);
    assert.equal(valuesOf('reviews', 0, stalled).cause_of_first_stall, 0);
  });

  it('mask: the task is never blamed, a relay or a framework message neither, a simulated customer is', () => {
    const support = buildTrace({
      id: 'support',
      format: 'test',
      question: 'Change my flight to Friday.',
      steps: [
        { speaker: 'user', content: 'Change my flight to Friday.' },
        { speaker: 'assistant', content: 'Which booking reference is it?' },
        { speaker: 'user', content: 'It is ABC123, and please keep my window seat as well.' },
        { speaker: 'assistant', content: 'Which booking reference is it?' },
      ],
    });
    assert.deepEqual(featuresAndMask(support).mask, [false, true, true, true]);
    // A short reply is the customer's own when it gives a figure nothing earlier gave (the zip
    // code may be the wrong one); a bare confirmation is not.
    const short = (reply: string) =>
      buildTrace({
        id: 'short',
        format: 'test',
        question: 'I want to exchange the water bottle in my order.',
        steps: [
          { speaker: 'user', content: 'I want to exchange the water bottle in my order.' },
          { speaker: 'assistant', content: 'Could you give me your name and zip code?' },
          { speaker: 'user', content: reply },
        ],
      });
    assert.deepEqual(featuresAndMask(short("Sure, it's Yusuf Rossi, zip 19122.")).mask, [
      false,
      true,
      true,
    ]);
    assert.deepEqual(featuresAndMask(short('Yes, go ahead.')).mask, [false, true, false]);
    const relay = buildTrace({
      id: 'relay',
      format: 'test',
      question: 'What is 2 + 2?',
      steps: [
        { speaker: 'User', content: 'What is 2 + 2?' },
        { speaker: 'Assistant1', content: 'The sum of two and two is four, as counting on shows.' },
        {
          speaker: 'User',
          content:
            'These are the opinions of the other agents: The sum of two and two is four, as counting on shows. Use them carefully as advice and give an updated answer.',
        },
      ],
    });
    assert.deepEqual(featuresAndMask(relay).mask, [false, true, false]);
    // A framework's own messages (a system prompt, a task assignment) are never blamed, and the
    // person's first turn after a system prompt is still the task.
    const framed = buildTrace({
      id: 'framed',
      format: 'test',
      question: 'Find the three most cited papers on failure attribution.',
      steps: [
        { speaker: 'system', role: 'system', content: 'You are a helpful research crew.' },
        { speaker: 'user', content: 'Find the three most cited papers on failure attribution.' },
        { speaker: 'Crew', role: 'system', content: 'Task research for Researcher: find papers' },
        { speaker: 'Researcher', content: 'Here are three papers, cited 120, 80 and 40 times.' },
      ],
    });
    assert.deepEqual(featuresAndMask(framed).mask, [false, false, false, true]);
    // An agent that opens a group chat by posting the task gave it; AG2's chat_manager only
    // introduces the team. An opening step with content of its own stays a candidate.
    const question = 'Which option describes the theory best? (A) one (B) two (C) three';
    const posted = (opening: string) =>
      buildTrace({
        id: 'posted',
        format: 'test',
        question,
        steps: [
          { speaker: 'Agent_Verifier', content: opening },
          { speaker: 'chat_manager', content: 'Hello everyone. We have assembled a great team.' },
          { speaker: 'Agent_Problem_Solver', content: 'The answer is (B), as the text argues.' },
        ],
      });
    assert.deepEqual(featuresAndMask(posted(question)).mask, [false, false, true]);
    // Inside a framework's template (AG2 MathChat's proxy), however many words the template has.
    const template = `Let's use Python to solve a math problem. Query requirements: you should always use the print function, and follow these steps:\n1. Solve the problem step by step.\n2. Wait for me to give the results.\n\nProblem:\n${question}`;
    assert.deepEqual(featuresAndMask(posted(template)).mask, [false, false, true]);
    assert.deepEqual(
      featuresAndMask(
        posted(
          `${question} I think it is (C), since the theory stresses duty over outcomes and character.`,
        ),
      ).mask,
      [true, false, true],
    );
  });

  it('agent features: every named feature is computed, from the named step features', () => {
    const { rows, mask, unshared } = featuresAndMask(trace);
    const { agents, rows: agentRows } = computeAgentFeatures(
      trace,
      rows,
      rows.map(() => 1 / rows.length),
      mask,
      unshared,
    );
    assert.deepEqual(agents, ['Orchestrator', 'Coder', 'Computer_terminal', 'Verifier']);
    for (const row of agentRows) {
      assert.equal(row.length, AGENT_FEATURE_NAMES.length);
      assert.ok(row.every(Number.isFinite));
    }
    const coder = agentRows[1]!;
    assert.equal(coder[AGENT_FEATURE_NAMES.indexOf('code_failed')], 1);
    assert.equal(coder[AGENT_FEATURE_NAMES.indexOf('code_share')], 0.5);
    assert.equal(agentRows[2]![AGENT_FEATURE_NAMES.indexOf('is_tool')], 1);
  });
});
