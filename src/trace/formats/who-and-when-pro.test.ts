/** The Who&When Pro layout's spelling variants, its labels, and what it must not take from AEGIS. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES } from '../../../test/paths.js';
import { TraceFormatError } from '../../errors.js';
import { importRawInput } from '../load.js';
import type { Trace } from '../model.js';
import { readRawInput } from '../read-input.js';
import { detectFormat } from '../registry.js';

const read = async (value: unknown): Promise<Trace> =>
  (await importRawInput({ kind: 'json', value }, { file: 'run.json', id: 'run' }))[0]!;

const trajectory = [
  { step: 1, agent: 'Planner', content: 'Researcher, find the population.' },
  { step: 2, agent: 'Researcher', content: 'It is 12 million.' },
  { step: 3, agent: 'Planner', content: 'Answer: 12 million.' },
];

describe('Who&When Pro', () => {
  it('reads labels in every spelling onto the canonical ones', async () => {
    const base = { id: 7, framework: 'CAMEL', agents: ['Planner', 'Researcher'], trajectory };
    const spellings: Record<string, unknown>[] = [
      { ground_truth: { agent: 'researcher', step: 2, mode: 'FM-2.6' } },
      { ground_truth: { mistake_agent: 'Researcher', mistake_step: '2', modes: ['2.6'] } },
      {
        ground_truth: {
          agent: ['Researcher'],
          step: '2',
          failure_mode: 'Reasoning-action mismatch',
        },
      },
      {
        ground_truth: {
          agent: 'Researcher',
          step: 2,
          failure_modes: ['2.6 Reasoning-action mismatch'],
        },
      },
    ];
    for (const labels of spellings) {
      const trace = await read({ ...base, ...labels });
      assert.equal(trace.id, '7');
      assert.deepEqual(
        trace.labels,
        { agent: 'Researcher', step: 1, faults: [{ agent: 'Researcher', mode: '2.6' }] },
        JSON.stringify(labels),
      );
      assert.equal(trace.outcome, 'failure');
    }
    // Top-level Who&When fields; steps without numbers are counted from 0.
    const unnumbered = trajectory.map(({ agent, content }) => ({ name: agent, output: content }));
    const trace = await read({
      task: { query: 'Population?' },
      mistake_agent: 'Researcher',
      mistake_step: 1,
      is_correct: false,
      trajectory: unnumbered,
    });
    assert.deepEqual(trace.labels, { agent: 'Researcher', step: 1 });
    assert.equal(trace.question, 'Population?');
  });

  it('keeps modes without an agent as the run’s, several agents as several', async () => {
    const modesOnly = await read({
      ground_truth: { modes: ['Step repetition', 'FM-3.1', 'a mode of its own'] },
      trajectory,
    });
    assert.deepEqual(modesOnly.labels, { modes: ['1.3', '3.1', 'a mode of its own'] });
    const several = await read({
      ground_truth: { agent: ['Planner', 'Researcher'], mode: '3.2' },
      trajectory,
    });
    assert.deepEqual(several.labels?.agents, ['Planner', 'Researcher']);
    assert.equal(several.labels?.faults?.length, 2);
  });

  it('names a labelled step that is no step of the run', async () => {
    await assert.rejects(
      read({ ground_truth: { agent: 'Planner', step: 5 }, trajectory }),
      (error: unknown) =>
        error instanceof TraceFormatError &&
        error.position === 'ground_truth.step' &&
        /labelled step 5 is no step/.test(error.problem),
    );
    await assert.rejects(
      read({ ground_truth: { agent: 'Planner' }, trajectory: [{ step: 1, content: 'x' }] }),
      (error: unknown) =>
        error instanceof TraceFormatError &&
        error.position === 'trajectory[0]' &&
        /names no agent/.test(error.problem),
    );
  });

  it('leaves AEGIS, Who&When and other files to their own importers', async () => {
    for (const [name, format] of [
      ['aegis-flat.jsonl', 'aegis'],
      ['aegis-release.json', 'aegis'],
      ['whowhen-algorithm-generated.json', 'who-and-when'],
      ['smolagents-memory-steps.json', 'smolagents'],
    ]) {
      const input = await readRawInput(join(FIXTURES, 'formats', name!));
      assert.equal(detectFormat(input)?.name, format, name);
    }
    // An AEGIS flat record keeps its importer even with Pro's fields beside.
    const aegis = readFileSync(join(FIXTURES, 'formats', 'aegis-flat.jsonl'), 'utf8').split(
      '\n',
    )[0]!;
    const record = {
      ...(JSON.parse(aegis) as object),
      ground_truth: { agent: 'x' },
      framework: 'y',
    };
    assert.equal(detectFormat({ kind: 'json', value: record })?.name, 'aegis');
  });
});
