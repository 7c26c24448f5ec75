/**
 * No request exceeds the model's context: every prompt of the LLM methods, counted with the
 * tokenizer, on the shared Who&When traces and on synthetic extremes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import { scriptedModel } from '../../../test/scripted-model.js';
import { HAS_SHARED_DATA, WHO_AND_WHEN } from '../../../test/paths.js';
import { buildTrace } from '../../trace/build-trace.js';
import { loadBatch } from '../../trace/load.js';
import type { Trace } from '../../trace/model.js';
import { allAtOnce, stepByStep } from './methods.js';

const ANSWER = '{"agent": "A", "step": 1, "reason": "x"}';

/** The largest prompt (system and user together) a method sent, in tokens. */
async function largestPrompt(
  trace: Trace,
  contextTokens: number,
  method: typeof allAtOnce = allAtOnce,
  replies: string[] = [ANSWER],
): Promise<{ tokens: number; warnings: string[] }> {
  const client = scriptedModel(replies, { contextTokens });
  const result = await method(trace, { client, maxCalls: replies.length });
  const tokens = Math.max(
    ...client.requests.map((request) => countTokens(request.system) + countTokens(request.prompt)),
  );
  return { tokens, warnings: result.warnings ?? [] };
}

/** Room a reply needs beyond the prompt. */
const REPLY_ROOM = 1_000;

describe('fitting logs into the context', () => {
  it('keeps one huge step, many short steps and a long task within the context', async () => {
    const huge = buildTrace({
      id: 'huge',
      format: 'test',
      steps: [
        { speaker: 'A', content: 'plan' },
        { speaker: 'B', content: `start ${'word '.repeat(60_000)} end` },
      ],
    });
    const many = buildTrace({
      id: 'many',
      format: 'test',
      steps: Array.from({ length: 6000 }, (_, index) => ({
        speaker: index % 2 ? 'A' : 'B',
        content: `step ${index}: ${'result '.repeat(10)}`,
      })),
    });
    const longTask = buildTrace({
      id: 'task',
      format: 'test',
      question: 'Explain '.repeat(2000),
      steps: Array.from({ length: 40 }, (_, index) => ({
        speaker: index % 2 ? 'A' : 'B',
        content: 'text '.repeat(400),
      })),
    });
    for (const [trace, context] of [
      [huge, 8192],
      [many, 128_000],
      [many, 8192],
      [longTask, 8192],
    ] as const) {
      const { tokens, warnings } = await largestPrompt(trace, context);
      assert.ok(tokens + REPLY_ROOM <= context, `${trace.id} at ${context}: ${tokens} tokens`);
      assert.match(warnings[0] ?? '', /longer than/);
      assert.doesNotMatch(warnings[0] ?? '', /: 0 of/, 'a cut log says what it cut');
    }
  });

  it('warns once however many calls shorten the log', async () => {
    const long = buildTrace({
      id: 'long',
      format: 'test',
      steps: Array.from({ length: 12 }, (_, index) => ({
        speaker: index % 2 ? 'A' : 'B',
        content: 'text '.repeat(2000),
      })),
    });
    const noes = long.steps.map(() => '{"error": false, "reason": "ok"}');
    const { warnings } = await largestPrompt(long, 4000, stepByStep, noes);
    assert.equal(warnings.length, 1);
  });

  it(
    'fits every shared Who&When trace into an 8,192-token context',
    { skip: HAS_SHARED_DATA ? false : `shared data not found at ${WHO_AND_WHEN}` },
    async () => {
      for await (const result of loadBatch([WHO_AND_WHEN])) {
        if (!result.ok) continue;
        for (const trace of result.traces) {
          const { tokens } = await largestPrompt(trace, 8192);
          assert.ok(tokens + REPLY_ROOM <= 8192, `${trace.id}: ${tokens} tokens`);
        }
      }
    },
  );
});
