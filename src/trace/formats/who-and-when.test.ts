import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { HAS_SHARED_DATA, WHO_AND_WHEN } from '../../../test/paths.js';
import { expandPaths, loadTrace } from '../load.js';

describe(
  'Who&When benchmark folder',
  { skip: HAS_SHARED_DATA ? false : `shared data not found at ${WHO_AND_WHEN}` },
  () => {
    it('reads every trace with step indices equal to history positions', async () => {
      const files = await expandPaths([WHO_AND_WHEN]);
      assert.equal(files.length, 120);
      for (const file of files) {
        const raw = JSON.parse(readFileSync(file, 'utf8')) as {
          history: { content: string }[];
          mistake_step: string;
          mistake_agent: string;
        };
        const trace = await loadTrace(file);
        assert.equal(trace.format, 'who-and-when');
        assert.equal(trace.steps.length, raw.history.length, file);
        trace.steps.forEach((step, index) => {
          assert.equal(step.index, index);
          assert.equal(step.content, raw.history[index]!.content);
        });
        assert.equal(trace.labels?.step, Number.parseInt(raw.mistake_step, 10), file);
        assert.equal(trace.outcome, 'failure');
        assert.ok(trace.labels?.agent, file);
      }
    });

    it('names Hand-Crafted speakers canonically and maps label casing', async () => {
      const files = (await expandPaths([`${WHO_AND_WHEN}/Hand-Crafted`])).slice(0, 36);
      for (const file of files) {
        const trace = await loadTrace(file);
        assert.equal(trace.metadata.subset, 'Hand-Crafted');
        assert.ok(
          trace.agents.every((agent) => !agent.name.includes('(')),
          file,
        );
        assert.equal(trace.steps[0]!.role, 'human');
        assert.ok(
          trace.agents.some((agent) => agent.name === trace.labels!.agent),
          `${file}: label ${trace.labels!.agent} not among agents`,
        );
      }
    });
  },
);
