/**
 * `--prompts paper`: the requests faultline sends match, character for character, those the
 * Who&When reference code builds for the same traces (fixtures made by
 * scripts/paper-prompt-fixtures.py, which runs the reference with a scripted client; it is run
 * again here where python3 and the reference are present), and the replies are read as the
 * reference reads them, with faultline's tolerant reading beside.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../../../test/paths.js';
import { scriptedModel } from '../../../test/scripted-model.js';
import { startScriptedProvider } from '../../../test/scripted-provider.js';
import { loadTrace } from '../../trace/load.js';
import type { Trace } from '../../trace/model.js';
import { allAtOnce, binarySearch, createLlmMethod, hybrid, stepByStep } from './methods.js';
import { PAPER_MAX_TOKENS } from './paper-methods.js';
import { readPaperAttribution, readPaperHalf, readTolerantHalf } from './paper-replies.js';

const FOLDER = join(ROOT, 'src/attribution/llm/__fixtures__/paper');
const REFERENCE = join(ROOT, '../shared/reference/who-and-when-automated-fa');

interface ReferenceRequest {
  model: string;
  max_tokens: number;
  messages: { role: string; content: string }[];
}

interface ReferenceRun {
  method: 'all_at_once' | 'step_by_step' | 'binary_search';
  scenario: string;
  replies: string[];
  /** What the reference printed, as its evaluate.py reads it; null for no prediction. */
  prediction: { agent: string; step: number } | null;
  withGroundTruth: ReferenceRequest[];
  withoutGroundTruth: ReferenceRequest[];
}

interface ReferenceFixture {
  record: string;
  isHandcrafted: boolean;
  runs: ReferenceRun[];
}

const LAYOUTS = ['hand-crafted', 'algorithm-generated'];
const readFixture = (folder: string, layout: string) =>
  JSON.parse(readFileSync(join(folder, `${layout}.reference.json`), 'utf8')) as ReferenceFixture;
const METHODS = { all_at_once: allAtOnce, step_by_step: stepByStep, binary_search: binarySearch };

describe('paper prompts against the reference code', () => {
  const traces = new Map<string, Trace>();
  before(async () => {
    for (const layout of LAYOUTS)
      traces.set(layout, await loadTrace(join(FOLDER, `${layout}.json`)));
  });

  for (const layout of LAYOUTS) {
    const fixture = readFixture(FOLDER, layout);
    for (const run of fixture.runs)
      for (const useGroundTruth of [true, false])
        it(`${layout}: ${run.method} (${run.scenario}, ${useGroundTruth ? 'with' : 'without'} ground truth) sends the reference's requests and reads its answer`, async () => {
          const trace = traces.get(layout)!;
          assert.equal(trace.metadata.subset === 'Hand-Crafted', fixture.isHandcrafted);
          const client = scriptedModel(run.replies);
          const result = await METHODS[run.method](trace, {
            client,
            prompts: 'paper',
            useGroundTruth,
          });
          const expected = useGroundTruth ? run.withGroundTruth : run.withoutGroundTruth;
          assert.equal(client.requests.length, expected.length);
          client.requests.forEach((request, index) => {
            const [system, user] = expected[index]!.messages;
            assert.deepEqual([system!.role, user!.role], ['system', 'user']);
            assert.equal(request.system, system!.content, `request ${index}: system message`);
            assert.equal(request.prompt, user!.content, `request ${index}: user message`);
            assert.equal(request.maxOutputTokens, expected[index]!.max_tokens);
            assert.equal(request.temperature, null, 'the reference sends no temperature');
            assert.equal(request.schema, undefined, 'the reference asks for text, not JSON');
          });
          assert.equal(result.prompts, 'paper');
          if (run.prediction === null) {
            assert.equal(result.step, null);
          } else {
            assert.equal(result.step, run.prediction.step);
            // evaluate.py reads a word of the agent's name ("Orchestrator (thought)" reads
            // "Orchestrator"), which is faultline's agent name for these speakers.
            assert.equal(result.agent, run.prediction.agent);
          }
        });
  }

  it('the fixtures are what the reference builds now (where python3 and the reference are here)', async (context) => {
    const python = spawnSync('python3', ['--version']);
    if (python.error || python.status !== 0 || !existsSync(join(REFERENCE, 'Lib/utils.py'))) {
      context.skip('python3 or the reference code is not available; the fixtures stand');
      return;
    }
    const out = await mkdtemp(join(tmpdir(), 'faultline-paper-'));
    try {
      const made = spawnSync(
        'python3',
        [join(ROOT, 'scripts/paper-prompt-fixtures.py'), '--reference', REFERENCE, '--out', out],
        { encoding: 'utf8' },
      );
      assert.equal(made.status, 0, made.stderr);
      for (const layout of LAYOUTS)
        assert.deepEqual(readFixture(out, layout), readFixture(FOLDER, layout), layout);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});

describe('paper replies, read strictly and tolerantly', () => {
  let trace: Trace;
  before(async () => {
    trace = await loadTrace(join(FOLDER, 'hand-crafted.json'));
  });

  it('step-by-step stops at the first "1. Yes"; a bold "**1. Yes**" is only the tolerant reading\'s', async () => {
    const client = scriptedModel([
      '1. No.\n2. Reason: fine',
      '**1. Yes**\n2. Reason: the plan',
      'Yes, this step is wrong.',
      '1. yes - 2. Reason: the listing',
    ]);
    const result = await stepByStep(trace, { client, prompts: 'paper' });
    assert.equal(result.step, 3);
    assert.equal(result.agent, 'WebSurfer');
    assert.equal(client.requests.length, 4, 'no step after the first "1. yes" is asked about');
    assert.deepEqual([result.lenient?.agent, result.lenient?.step], ['Orchestrator', 1]);
    // The task's own step is asked about too, as in the reference.
    assert.match(client.prompts()[0]!, /The most recent step \(0\) was by 'human'/);
  });

  it('binary search: "upper half" is the earlier steps; a reply naming neither is decided by a seeded coin', async () => {
    const upper = await binarySearch(trace, {
      client: scriptedModel(Array(5).fill('upper half')),
      prompts: 'paper',
    });
    assert.equal(upper.step, 0);
    const lower = await binarySearch(trace, {
      client: scriptedModel(Array(5).fill('lower half')),
      prompts: 'paper',
    });
    assert.equal(lower.step, trace.steps.length - 1);

    const unsure = () => scriptedModel(Array(5).fill('I cannot tell.'));
    const first = await binarySearch(trace, { client: unsure(), prompts: 'paper' });
    const second = await binarySearch(trace, { client: unsure(), prompts: 'paper' });
    assert.ok(first.step !== null && first.step >= 0);
    assert.equal(second.step, first.step, 'the coin is seeded by trace and range');
    assert.match(first.reason, /a coin chose/);
    assert.match(first.warnings?.[0] ?? '', /named neither half, and a coin chose/);
    assert.equal(first.lenient?.unparsed, true, 'the tolerant reading never flips a coin');
    assert.equal(first.lenient?.step, null);
  });

  it('binary search reads as the reference does, and tolerantly beside it', () => {
    assert.equal(readPaperHalf('Not the lower half: the UPPER half.'), 'upper');
    assert.equal(readPaperHalf('**Lower** half'), undefined);
    assert.equal(readTolerantHalf('**Lower** half'), 'lower');
    assert.equal(readTolerantHalf('the earlier half'), 'upper');
    assert.equal(readTolerantHalf('{"half": "Later"}'), 'lower');
    assert.equal(readTolerantHalf('Not the lower half: the upper half.'), undefined);
  });

  it('the tolerant walk asks only where the readings part', async () => {
    // "**Lower** half" is a coin for the reference and "lower" for the tolerant reading.
    const client = scriptedModel(['**Lower** half', ...Array(6).fill('upper half')]);
    const result = await binarySearch(trace, { client, prompts: 'paper' });
    assert.equal(result.lenient?.step, 4, 'lower 4-6, then upper 4-5, then upper 4-4');
    const reasons = result.reason;
    assert.match(reasons, /^(upper|lower) half of 0-6 \(the reply named neither: a coin chose\)/);
    assert.equal(
      new Set(client.prompts()).size,
      client.requests.length,
      'no request is sent twice in a run',
    );
  });

  it('all-at-once reads as evaluate.py does: a word after "Agent Name:", digits after "Step Number:"', async () => {
    assert.deepEqual(
      readPaperAttribution(
        'agent name: Orchestrator (thought)\nstep number: 4\nReason for Mistake: x',
      ),
      { agent: 'Orchestrator', step: 4, reason: 'x' },
    );
    const bold = await allAtOnce(trace, {
      client: scriptedModel([
        '**Agent Name:** WebSurfer\n**Step Number:** 3\n**Reason for Mistake:** y',
      ]),
      prompts: 'paper',
    });
    assert.equal(bold.unparsed, true);
    assert.equal(bold.step, null);
    assert.deepEqual([bold.lenient?.agent, bold.lenient?.step], ['WebSurfer', 3]);
    const outside = await allAtOnce(trace, {
      client: scriptedModel(['Agent Name: WebSurfer\nStep Number: 30\nReason for Mistake: z']),
      prompts: 'paper',
    });
    assert.deepEqual([outside.agent, outside.step], ['WebSurfer', null]);
    assert.match(outside.reason, /names step 30; the log has 7 steps/);
  });

  it('an empty reply or a prompt too long for the context ends without an answer, as the reference does', async () => {
    const empty = await stepByStep(trace, { client: scriptedModel(['  ']), prompts: 'paper' });
    assert.equal(empty.step, null);
    assert.equal(empty.usage.calls, 1);
    const tooLong = await binarySearch(trace, {
      client: scriptedModel([], { contextTokens: 1200 }),
      prompts: 'paper',
    });
    assert.equal(tooLong.step, null);
    assert.equal(tooLong.usage.calls, 0);
    assert.match(tooLong.warnings?.[0] ?? '', /does not fit the model's 1200-token context/);
  });

  it('hybrid has no paper prompts; an unknown style is named', () => {
    assert.throws(
      () => createLlmMethod('hybrid', { client: scriptedModel([]), prompts: 'paper' }),
      /hybrid has no paper prompts: the Who&When paper's methods are all-at-once, step-by-step, binary-search/,
    );
    assert.throws(
      () =>
        createLlmMethod('all-at-once', {
          client: scriptedModel([]),
          prompts: 'mine' as unknown as 'paper',
        }),
      /unknown prompts "mine"; choose one of: faultline, paper/,
    );
    return assert.rejects(hybrid(trace, { client: scriptedModel([]), prompts: 'paper' }));
  });
});

describe('paper prompts over the wire', () => {
  const saved = { ...process.env };
  let home = '';
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-paper-home-'));
    Object.assign(process.env, { OPENAI_API_KEY: 'test-key', FAULTLINE_HOME: home });
  });
  after(async () => {
    process.env = saved;
    await rm(home, { recursive: true, force: true });
  });

  it('the OpenAI request holds the reference messages, max_tokens 1024 and no temperature', async () => {
    const trace = await loadTrace(join(FOLDER, 'algorithm-generated.json'));
    const fixture = readFixture(FOLDER, 'algorithm-generated');
    const run = fixture.runs.find((entry) => entry.method === 'binary_search')!;
    const server = await startScriptedProvider('openai', run.replies);
    try {
      const result = await binarySearch(trace, {
        model: 'openai:gpt-4o',
        baseUrl: server.baseUrl,
        prompts: 'paper',
        maxRetries: 0,
      });
      assert.equal(result.step, run.prediction!.step);
      assert.equal(server.requests.length, run.withGroundTruth.length);
      server.requests.forEach(({ body }, index) => {
        const expected = run.withGroundTruth[index]!;
        assert.deepEqual(body.messages, expected.messages);
        assert.equal(body.max_tokens, PAPER_MAX_TOKENS);
        assert.equal(body.temperature, undefined);
        assert.equal(body.response_format, undefined);
      });
    } finally {
      await server.close();
    }
  });

  it('against the scripted server: "upper half" every time ends at the first step, "lower half" at the last; step-by-step stops at the first "1. Yes"', async () => {
    const trace = await loadTrace(join(FOLDER, 'hand-crafted.json'));
    const last = trace.steps.length - 1;
    for (const [reply, step] of [
      ['upper half', 0],
      ['lower half', last],
    ] as const) {
      const server = await startScriptedProvider('openai', Array(5).fill(reply));
      try {
        const result = await binarySearch(trace, {
          model: 'openai:gpt-4o',
          baseUrl: server.baseUrl,
          prompts: 'paper',
          cache: false,
          maxRetries: 0,
        });
        assert.equal(result.step, step, reply);
        assert.ok(server.requests.length <= Math.ceil(Math.log2(trace.steps.length)));
      } finally {
        await server.close();
      }
    }
    const server = await startScriptedProvider('openai', [
      '1. No.\n2. Reason: fine',
      '1. No.\n2. Reason: fine',
      '1. Yes.\n2. Reason: the request to WebSurfer is vague',
      '1. Yes.\n2. Reason: never asked',
    ]);
    try {
      const result = await stepByStep(trace, {
        model: 'openai:gpt-4o',
        baseUrl: server.baseUrl,
        prompts: 'paper',
        cache: false,
        maxRetries: 0,
      });
      assert.equal(result.step, 2);
      assert.equal(result.reason, 'the request to WebSurfer is vague');
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
  });
});
