import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AttributionMethod } from '../method.js';
import type { Trace } from '../../trace/model.js';
import { pricingRuns } from './__fixtures__/runs.js';
import { createCombinedMethod } from './combined.js';
import { createSpectrumMethod, runsWith, spectrumMethod, unitsOnce } from './method.js';

/** Each run studied in turn by one method over `runs` gets the verdict a new method gives it. */
async function assertInTurnAsAlone(
  create: () => AttributionMethod,
  studied: readonly Trace[],
  runs: readonly Trace[],
): Promise<void> {
  const shared = create();
  for (const run of studied) {
    const inTurn = await shared.attribute(run, { runs });
    const alone = await create().attribute(run, { runs: [...runs] });
    assert.deepEqual(inTurn, alone, run.id);
  }
}

describe('combined verdict', () => {
  it('names the step the spectrum and the divergence point to, and says what it rests on', async () => {
    const runs = pricingRuns(6, 2, 5);
    const result = await createCombinedMethod().attribute(runs[0]!, { runs });
    assert.equal(result.method, 'combined');
    assert.deepEqual([result.agent, result.step], ['Researcher', 2]);
    assert.match(
      result.reason,
      /the spectrum puts it first \(in 6 of 8 failing runs and 0 of 5 passing\)/,
    );
    assert.match(result.reason, /the run first parts from a passing run there/);
    assert.equal(result.spectrum?.runs.failing, 8);
    // The other steps are candidates only where some source rates them, here and in the spectrum's.
    const spectrum = await spectrumMethod.attribute(runs[0]!, { runs });
    for (const candidate of [...(result.candidates ?? []), ...(spectrum.candidates ?? [])])
      assert.ok(candidate.score > 0, `step ${candidate.step} at ${candidate.score}`);
    // Their scores are theirs, not probabilities, and say so.
    assert.deepEqual([result.candidateScale, spectrum.candidateScale], ['score', 'score']);
  });

  it('states a step verify proved as proved, beside what the other sources say', async () => {
    const runs = pricingRuns(6, 2, 5);
    const proved = {
      ...runs[0]!,
      labels: { agent: 'Analyst', step: 3, proof: { run: 'replay-7', replays: 2 } },
    };
    const result = await createCombinedMethod().attribute(proved, { runs });
    assert.deepEqual([result.agent, result.step], ['Analyst', 3]);
    assert.deepEqual(result.verified, { step: 3, agent: 'Analyst', run: 'replay-7', replays: 2 });
    assert.match(
      result.reason,
      /^Step 3 \(Analyst\): verify proved it: with it fixed, the run passed/,
    );
    assert.match(result.reason, /spectrum: Researcher at step 2/);
    assert.ok(!result.candidates?.some((candidate) => candidate.step === 3));
  });

  it('counts a run read from its file once when the store holds it too (attribute --task)', async () => {
    const runs = pricingRuns(6, 2, 5); // as the store gives them: no file
    const fromFile = { ...runs[0]!, source: 'reruns/run-0.json' };
    const result = await createCombinedMethod().attribute(fromFile, { runs });
    assert.deepEqual(result.spectrum?.runs, { failing: 8, passing: 5, unknown: 0 });
  });

  it('refuses a run without other runs of its task, as spectrum does', async () => {
    const [run] = pricingRuns(1, 0, 0);
    await assert.rejects(createCombinedMethod().attribute(run!, {}), /--runs/);
    await assert.rejects(spectrumMethod.attribute(run!, { runs: [] }), /--runs/);
  });

  it('counts the siblings as failing when none says how it ended, and says so', async () => {
    const runs = pricingRuns(3, 0, 0).map((run, index) =>
      index === 0 ? run : { ...run, outcome: 'unknown' as const },
    );
    const result = await spectrumMethod.attribute(runs[0]!, { runs });
    assert.equal(result.spectrum?.runs.failing, 3);
    assert.match(result.spectrum.notes[0]!, /all were counted as failing/);
  });

  it('gives each failed run of a task, attributed in turn with one run list, the verdict it gets alone, its units cut once', async () => {
    // A run of unknown outcome is studied as failing, and counts so in its own analysis only.
    const runs = pricingRuns(5, 3, 4).map((run, index) =>
      index === 6 ? { ...run, outcome: 'unknown' as const } : run,
    );
    const studied = runs.filter((run) => run.outcome !== 'success');
    for (const create of [() => createCombinedMethod(), () => createSpectrumMethod()])
      await assertInTurnAsAlone(create, studied, runs);
    const unitsOf = unitsOnce();
    const [first, second] = studied.map((run) => runsWith(run, runs).runs);
    assert.equal(unitsOf(runs, first!), unitsOf(runs, second!));
    assert.deepEqual(
      first!.map((run) => run.id),
      runs.map((run) => run.id),
    );
  });

  it('finds where the run parts from the one passing run, wherever that run is in the list', async () => {
    const runs = pricingRuns(3, 0, 1); // the passing run last, as passed/ sorts after failed/
    for (const studied of runs.slice(0, 3)) {
      const result = await createCombinedMethod().attribute(studied, { runs });
      assert.match(result.reason, /divergence at step 2/, studied.id);
    }
  });

  it('studies runs read apart from the run list given (attribute FILES --runs DIR) one after another', async () => {
    const runs = pricingRuns(4, 2, 3);
    await assertInTurnAsAlone(
      () => createCombinedMethod(),
      structuredClone(runs.slice(0, 6)),
      runs,
    );
  });
});
