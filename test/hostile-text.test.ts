/**
 * Every pattern that runs on text from a trace, a model's reply or a request takes time linear in
 * that text (issue 50). The lint rules `regexp/no-super-linear-*` check each pattern literal; these
 * tests run each function that holds one on a megabyte built to make a backtracking pattern
 * quadratic (a long run of the characters the pattern repeats, then none of what must follow).
 * A quadratic pattern takes hours on such input, so the deadline below is a bound, not a timing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attribute } from '../src/attribution/attribute.js';
import { diffTraces } from '../src/attribution/diverge/diff.js';
import { decisionOf, numbersIn, substanceOf } from '../src/attribution/diverge/substance.js';
import {
  extractJsonObject,
  parseAttributionReply,
  parseVerdictReply,
} from '../src/attribution/llm/replies.js';
import { replyOperators } from '../src/recording/inject/reply-operators.js';
import { nameInSystemPrompt, tidyName } from '../src/recording/record/prompt-name.js';
import { upstreamUrl } from '../src/recording/proxy/forward.js';
import { wireApiFor } from '../src/recording/wire/registry.js';
import { canonicalAgentName } from '../src/trace/agents.js';
import { toTrace } from '../src/trace/load.js';

const MEGABYTE = 1_000_000;
/** Runs of what the patterns repeat, each a megabyte, ending in a character none accepts. */
const HOSTILE = [
  ' ',
  '\t',
  '\r',
  '\n',
  '*',
  '(',
  '{',
  '`',
  '```\n',
  '“',
  '/',
  '-',
  '_',
  '7',
  'a',
  'a7 ',
  'yes ',
].map((run) => `${run.repeat(Math.ceil(MEGABYTE / run.length))}\u0000`);
const BOUND = { timeout: 120_000 };

describe('patterns on hostile text', () => {
  it('agent names', BOUND, () => {
    for (const text of HOSTILE) assert.ok(canonicalAgentName(text).length <= 200);
  });

  it('model replies: JSON, the paper formats, verdicts', BOUND, async () => {
    const trace = await toTrace({ history: [{ name: 'A', content: 'x' }] });
    for (const text of HOSTILE) {
      extractJsonObject(text);
      parseAttributionReply(`Agent Name: A${text}`, trace);
      parseAttributionReply(`modes${text}`, trace);
      parseVerdictReply(text);
    }
  });

  it('the proxy: names from prompts, upstream paths, injection operators', BOUND, () => {
    for (const text of HOSTILE) {
      tidyName(text);
      nameInSystemPrompt(`You are ${text}`);
      wireApiFor(`/v1/chat/completions${text}`);
      for (const [, , operator] of replyOperators)
        operator({ text, toolCalls: [] }, {
          target: { delta: 1, agent: 'A' },
          earlier: [],
          request: {},
        } as never);
    }
    assert.equal(
      upstreamUrl(new URL(`http://127.0.0.1/v1${'/'.repeat(MEGABYTE)}`), '/chat', '').pathname,
      '/v1/chat',
    );
  });

  it('the offline model, diff and step substance on a run made of them', BOUND, async () => {
    const steps = HOSTILE.map((content, index) => ({
      name: index % 2 ? 'Coder' : 'Planner',
      content,
    }));
    const failed = await toTrace({ question: 'q', history: steps });
    for (const step of failed.steps) {
      substanceOf(step);
      numbersIn(step.content);
      decisionOf(step.content);
    }
    const result = await attribute(failed);
    assert.ok(result.agent === null || typeof result.agent === 'string');
    diffTraces(failed, await toTrace({ question: 'q', history: steps.slice(0, 3) }));
  });
});
