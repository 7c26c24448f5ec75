import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../../test/paths.js';
import { scriptedModel } from '../../test/scripted-model.js';
import { ProviderError } from '../errors.js';
import { buildTrace } from '../trace/build-trace.js';
import { loadTrace } from '../trace/load.js';
import type { Trace } from '../trace/model.js';
import { renderHtmlReport } from './report-html.js';
import { renderMarkdownReport, terminalReport } from './report-markdown.js';
import { runEvaluation, type EvalProgress } from './run-eval.js';
import { ResultStore } from './result-store.js';
import { summariseEvaluation } from './summary.js';

describe('evaluation runs', () => {
  let folder = '';
  let traces: Trace[] = [];
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'faultline-eval-'));
    traces = [
      await loadTrace(join(ROOT, 'examples/who-and-when-ag-58.json')),
      await loadTrace(join(ROOT, 'examples/who-and-when-hc-6.json')),
    ];
    traces.push(
      buildTrace({
        id: 'synthetic',
        format: 'test',
        source: 'synthetic.json',
        steps: [
          { speaker: 'human', content: 'task' },
          { speaker: 'Planner', content: 'plan' },
          { speaker: 'Coder', content: '```python\nprint(1)\n```' },
          { speaker: 'Computer_terminal', content: 'exitcode: 1 (execution failed)\nTraceback' },
        ],
        labels: { agent: 'Coder', step: 2 },
      }),
    );
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('resumes after an interruption and re-reports a finished run without recomputing', async () => {
    const file = join(folder, 'results.jsonl');
    const first = await runEvaluation(traces, new ResultStore(file), {
      methods: ['first-agent', 'offline'],
      groundTruthSettings: [true],
      includeTrain: true,
    });
    assert.equal(first.records.length, 6);

    // Simulate a kill mid-write: keep two records and half of the third line.
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    await writeFile(file, `${lines[0]}\n${lines[1]}\n${lines[2]!.slice(0, 40)}`);
    const resumedProgress: EvalProgress[] = [];
    const resumed = await runEvaluation(traces, new ResultStore(file), {
      methods: ['first-agent', 'offline'],
      groundTruthSettings: [true],
      includeTrain: true,
      onProgress: (progress) => resumedProgress.push(progress),
    });
    const strip = (records: typeof first.records) =>
      records
        .map((record) => ({ ...record, milliseconds: 0 }))
        .sort((left, right) =>
          `${left.method}${left.file}`.localeCompare(`${right.method}${right.file}`),
        );
    assert.deepEqual(strip(resumed.records), strip(first.records));
    assert.equal(
      resumedProgress.filter((progress) => progress.method === 'first-agent').at(-1)!.resumed,
      2,
    );

    const again: EvalProgress[] = [];
    await runEvaluation(traces, new ResultStore(file), {
      methods: ['first-agent', 'offline'],
      groundTruthSettings: [true],
      includeTrain: true,
      onProgress: (progress) => again.push(progress),
    });
    assert.ok(
      again.every((progress) => progress.resumed === progress.done),
      'everything came from the store',
    );
  });

  it('reuses a stored result only under the same settings, however the path is spelled', async () => {
    const file = join(folder, 'settings.jsonl');
    const client = scriptedModel(Array(3).fill('{"agent": "Coder", "step": 2, "reason": "x"}'));
    const run = (contextTokens: number, source: string) =>
      runEvaluation([{ ...traces[2]!, source }], new ResultStore(file), {
        methods: ['all-at-once'],
        groundTruthSettings: [true],
        llm: { client, model: 'openai:scripted', contextTokens },
      });
    await run(8000, 'synthetic.json');
    await run(8000, join(process.cwd(), 'synthetic.json'));
    assert.equal(client.requests.length, 1, 'an absolute spelling of the same path reuses it');
    await run(4000, 'synthetic.json');
    assert.equal(client.requests.length, 2, 'another context size is another result');
  });

  it('reuses a held-out record only for the same labelled runs, which its models trained on', async () => {
    const file = join(folder, 'held-out.jsonl');
    const run = async (runs: Trace[], method: string) => {
      const progress: EvalProgress[] = [];
      await runEvaluation(runs, new ResultStore(file), {
        methods: [method],
        groundTruthSettings: [true],
        plan: { by: 'question', folds: 2, seeds: [0] },
        onProgress: (update) => progress.push(update),
      });
      return progress.at(-1)!;
    };
    for (const method of ['offline-cv', 'offline-loso']) {
      assert.equal((await run(traces, method)).resumed, 0, method);
      assert.equal((await run(traces, method)).resumed, 3, `${method}: the same runs again`);
      // Evaluated without one run, the others are predicted by models that never saw it: other
      // results than the stored ones, though every run left is in the store.
      assert.equal((await run(traces.slice(0, 2), method)).resumed, 0, `${method}: a run fewer`);
      // A label corrected is another training set too.
      const relabelled = [traces[0]!, { ...traces[1]!, labels: { ...traces[1]!.labels, step: 0 } }];
      assert.equal((await run(relabelled, method)).resumed, 0, `${method}: a label changed`);
    }
  });

  it('scores a stored prediction against the label the trace has now', async () => {
    const file = join(folder, 'relabelled.jsonl');
    const evaluate = (trace: Trace) =>
      runEvaluation([trace], new ResultStore(file), {
        methods: ['first-agent'],
        groundTruthSettings: [true],
      });
    const first = await evaluate(traces[2]!);
    assert.deepEqual(first.records[0]!.label, { agent: 'Coder', step: 2 });
    const taught = { ...traces[2]!, labels: { agent: 'Planner', step: 1 } };
    const again = await evaluate(taught);
    assert.equal(again.records[0]!.predicted.reason, first.records[0]!.predicted.reason);
    assert.deepEqual(again.records[0]!.label, { agent: 'Planner', step: 1 });
  });

  it('names the trace when a provider fails', async () => {
    const client = {
      spec: { provider: 'openai', model: 'scripted' },
      contextTokens: 128_000,
      price: undefined,
      async generate(): Promise<never> {
        throw new ProviderError('openai:scripted: HTTP 401 (check the API key)', { status: 401 });
      },
    };
    await assert.rejects(
      runEvaluation([traces[2]!], new ResultStore(join(folder, 'failing.jsonl')), {
        methods: ['all-at-once'],
        groundTruthSettings: [true],
        llm: { client, model: 'openai:scripted' },
      }),
      /^ProviderError: synthetic\.json: all-at-once \[openai:scripted\]: openai:scripted: HTTP 401/,
    );
  });

  it('keeps the warnings of shortened calls and counts them in the report', async () => {
    const long = buildTrace({
      id: 'long',
      format: 'test',
      source: 'long.json',
      steps: [
        { speaker: 'Planner', content: `plan ${'detail '.repeat(6000)}` },
        { speaker: 'Coder', content: `code ${'line '.repeat(6000)}` },
      ],
      labels: { agent: 'Coder', step: 1 },
    });
    const client = scriptedModel(['{"agent": "Coder", "step": 1, "reason": "x"}'], {
      contextTokens: 4000,
    });
    const result = await runEvaluation([long], new ResultStore(join(folder, 'long.jsonl')), {
      methods: ['all-at-once'],
      groundTruthSettings: [true],
      llm: { client, model: 'openai:scripted' },
    });
    assert.match(result.records[0]!.predicted.warnings?.[0] ?? '', /longer than/);
    const summary = summariseEvaluation(result.records, [long], result.info);
    assert.match(renderMarkdownReport(summary), /1 of 1 calls had their log shortened/);
  });

  it("leaves the offline model's training traces out unless asked", async () => {
    const result = await runEvaluation(traces, new ResultStore(join(folder, 'exclusion.jsonl')), {
      methods: ['offline'],
      groundTruthSettings: [true],
    });
    assert.equal(
      result.info.excludedTrainingTraces,
      2,
      'both examples are Who&When training traces',
    );
    assert.equal(result.records.length, 1);
    const summary = summariseEvaluation(result.records, traces, result.info);
    assert.match(
      renderMarkdownReport(summary),
      /2 trace\(s\) the offline model was trained on were left out/,
    );
  });

  it('renders trace text inert in the HTML report', async () => {
    const hostile = buildTrace({
      id: 'hostile',
      format: 'test',
      source: '<img src=x onerror=alert(1)>.json',
      steps: [
        { speaker: 'Agent<script>', content: '<script>alert("x")</script>' },
        { speaker: 'B', content: '<img src=x onerror=alert(2)>' },
      ],
      labels: { agent: 'B', step: 1 },
    });
    const result = await runEvaluation([hostile], new ResultStore(join(folder, 'hostile.jsonl')), {
      methods: ['first-agent'],
      groundTruthSettings: [true],
    });
    const html = renderHtmlReport(summariseEvaluation(result.records, [hostile], result.info), [
      hostile,
    ]);
    assert.doesNotMatch(html, /<script>alert/);
    assert.doesNotMatch(html, /<img src=x/);
    assert.match(html, /&lt;script&gt;alert/);
    assert.match(html, /<svg/);
  });
  it('stores paper-prompt runs apart, with the tolerant reading beside them, and resumes both', async () => {
    const trace = await loadTrace(
      join(ROOT, 'src/attribution/llm/__fixtures__/paper/hand-crafted.json'),
    );
    const file = join(folder, 'paper.jsonl');
    const evaluate = (client: ReturnType<typeof scriptedModel>, prompts?: 'paper') =>
      runEvaluation([trace], new ResultStore(file), {
        methods: ['all-at-once'],
        groundTruthSettings: [true],
        llm: { client, ...(prompts ? { prompts } : {}) },
      });
    // Bold labels: unreadable by evaluate.py's reading, read by faultline's.
    const paper = await evaluate(
      scriptedModel(['**Agent Name:** WebSurfer\n**Step Number:** 3']),
      'paper',
    );
    assert.deepEqual(
      paper.records.map((record) => [record.method, record.predicted.agent, record.predicted.step]),
      [
        ['all-at-once [paper prompts]', null, null],
        ['all-at-once [paper prompts, tolerant reading]', 'WebSurfer', 3],
      ],
    );
    const report = terminalReport(summariseEvaluation(paper.records, [trace], paper.info));
    assert.match(report, /In the layout of the Who&When paper/);
    assert.match(
      report,
      /all-at-once \[paper prompts, tolerant reading\] \(with GT\) \| 100\.0 \| 100\.0/,
    );

    const again = scriptedModel([]);
    const resumed = await evaluate(again, 'paper');
    assert.equal(again.requests.length, 0, 'both records come from the store');
    assert.equal(resumed.records.length, 2);
    const own = await evaluate(
      scriptedModel(['{"agent": "WebSurfer", "step": 3, "reason": "r", "modes": []}']),
    );
    assert.deepEqual(
      own.records.map((record) => record.method),
      ['all-at-once'],
      "faultline's own prompts keep the method's name",
    );
  });
});
