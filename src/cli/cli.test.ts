/** The command line end to end, run as a user runs it (a child process), on shipped files. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { FIXTURES, ROOT } from '../../test/paths.js';
import { runFaultline } from '../../test/run-cli.js';
import { startScriptedProvider } from '../../test/scripted-provider.js';

const run = promisify(execFile);
const CLI = join(ROOT, 'src/cli/index.ts');

const faultlineWith = (env: Record<string, string | undefined>, ...args: string[]) =>
  runFaultline(args, env);
const faultline = (...args: string[]) => runFaultline(args);

describe('faultline command', () => {
  let folder = '';
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'faultline-cli-'));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('prints its version and help with examples', async () => {
    const [version, help] = await Promise.all([
      faultline('--version'),
      faultline('attribute', '--help'),
    ]);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+/);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Examples:/);
    assert.match(help.stdout, /--no-ground-truth/);
  });

  it('attributes with one JSON object per trace per line', async () => {
    const result = await faultline(
      'attribute',
      'examples/who-and-when-ag-58.json',
      'examples/who-and-when-hc-6.json',
      '--json',
    );
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(lines.length, 2);
    assert.equal(lines[0]!.trace, 'examples/who-and-when-ag-58.json');
    for (const line of lines) {
      assert.equal(typeof line.agent, 'string');
      assert.ok(Number.isInteger(line.step));
      assert.equal(typeof line.reason, 'string');
      assert.equal(line.method, 'offline');
      assert.equal(typeof line.confidence, 'number');
      assert.ok(Array.isArray(line.candidates));
    }
  });

  it('reads a whole folder and keeps going past bad files, exiting 2', async () => {
    await writeFile(
      join(folder, 'good.json'),
      JSON.stringify({
        history: [
          { role: 'user', content: 'q' },
          { role: 'assistant', name: 'A', content: 'a' },
        ],
      }),
    );
    await writeFile(join(folder, 'bad.json'), '{"history": [');
    const result = await faultline('attribute', folder, '--json');
    assert.equal(result.code, 2);
    assert.equal(result.stdout.trim().split('\n').length, 1);
    const errors = result.stderr.trim().split('\n');
    assert.match(errors[0]!, /bad\.json: the JSON ends too early/);
    assert.match(errors[1]!, /1 of 2 files could not be read/);
  });

  it('reads a trace piped in as -, gzip-compressed too, and names it stdin', async () => {
    const trace = await readFile(join(ROOT, 'examples/who-and-when-ag-58.json'));
    const [plain, gzipped, empty] = await Promise.all([
      runFaultline(['attribute', '-', '--json'], {}, trace),
      runFaultline(['attribute', '-', '--json'], {}, gzipSync(trace)),
      runFaultline(['attribute', '-'], {}, ''),
    ]);
    for (const result of [plain, gzipped]) {
      assert.equal(result.code, 0, result.stderr);
      const line = JSON.parse(result.stdout) as { trace: string; id: string; agent: string };
      assert.deepEqual(
        [line.trace, line.id, line.agent],
        ['stdin', 'stdin', 'Verification_Expert'],
      );
    }
    assert.equal(empty.code, 2);
    assert.equal(empty.stderr, 'faultline: stdin: the file is empty\n');
  });

  it('gives one line and exit 2 for a malformed file, a stack only with --debug', async () => {
    const file = join(FIXTURES, 'negative/content-object.json');
    const [plain, missing, debug] = await Promise.all([
      faultline('attribute', file),
      faultline('attribute', 'no/such/trace.json'),
      faultline('--debug', 'attribute', file),
    ]);
    assert.equal(plain.code, 2);
    assert.equal(plain.stderr.trim().split('\n').length, 1);
    assert.match(
      plain.stderr,
      /content-object\.json \(messages\) at history\[0\]\.content: content is an object/,
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^faultline: no\/such\/trace\.json: no such file\n$/);
    assert.match(debug.stderr, /at .*\.ts:\d+/);
  });

  it('names the valid choices for an unknown method, and refuses a model no method uses', async () => {
    const [result, model] = await Promise.all([
      faultline('attribute', 'examples/who-and-when-ag-58.json', '--method', 'oracle'),
      faultline('attribute', 'examples/who-and-when-ag-58.json', '--model', 'openai:gpt-4o'),
    ]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown method "oracle"; choose one of: offline, first-agent/);
    assert.equal(model.code, 2);
    assert.match(model.stderr, /--method offline uses none; add --method all-at-once/);
  });

  it('attributes without loading training code, the table library or the tolerant JSON parser', async () => {
    // A module hook reports every module whose path names one of them; start-up time is what is
    // at stake (npm run bench measures it).
    const heavy =
      /ml-matrix|cli-table3|jsonc-parser|mode-training|fit-logistic|offline\/train\.[jt]s/;
    const hook = `export async function load(url, context, next) {
      if (${heavy}.test(url)) process.stderr.write('loaded ' + url + '\\n');
      return next(url, context);
    }`;
    const register = `import { register } from 'node:module';
      register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        `data:text/javascript,${encodeURIComponent(register)}`,
        CLI,
        'attribute',
        'examples/who-and-when-hc-6.json',
        '--json',
      ],
      { cwd: ROOT },
    );
    assert.ok((JSON.parse(stdout) as { agent: string }).agent);
    assert.doesNotMatch(stderr, /loaded /);
  });

  it('inspects as a table and as canonical JSON', async () => {
    const [table, json] = await Promise.all([
      faultline('inspect', 'examples/who-and-when-hc-6.json'),
      faultline('inspect', 'examples/who-and-when-hc-6.json', '--json'),
    ]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /Orchestrator \(thought\)/);
    assert.doesNotMatch(table.stdout, /\(\(/);
    assert.match(table.stdout, /decisive step/);
    const trace = JSON.parse(json.stdout) as { steps: { agent: string }[] };
    assert.ok(trace.steps.every((step) => !step.agent.includes('(')));
  });

  it('converts to messages that read back with the same steps', async () => {
    const out = join(folder, 'converted.json');
    const source = join(FIXTURES, 'formats/otlp-genai-semconv.json');
    const [converted, inspected] = await Promise.all([
      faultline('convert', source, '--to', 'messages', '--out', out),
      faultline('inspect', source, '--json'),
    ]);
    assert.equal(converted.code, 0, converted.stderr);
    const original = JSON.parse(inspected.stdout) as {
      steps: { agent: string; content: string }[];
    };
    const back = JSON.parse((await faultline('inspect', out, '--json')).stdout) as {
      format: string;
      steps: { agent: string; content: string }[];
    };
    assert.equal(back.format, 'messages');
    assert.deepEqual(
      back.steps.map((step) => [step.agent, step.content]),
      original.steps.map((step) => [step.agent, step.content]),
    );
  });

  it('converts a file of several runs to a list that reads back as those runs', async () => {
    const out = join(folder, 'several.json');
    const source = join(FIXTURES, 'formats/aegis-flat.jsonl');
    const [converted, direct] = await Promise.all([
      faultline('convert', source, '--to', 'messages', '--out', out),
      faultline('convert', source, '--to', 'canonical'),
    ]);
    assert.equal(converted.code, 0, converted.stderr);
    type Canonical = { id: string; steps: { agent: string; content: string }[] }[];
    const runs = JSON.parse(direct.stdout) as Canonical;
    const back = JSON.parse(
      (await faultline('convert', out, '--to', 'canonical')).stdout,
    ) as Canonical;
    assert.equal(runs.length, 2);
    assert.deepEqual(
      back.map((run) => run.id),
      ['several-1', 'several-2'],
    );
    const said = (run: Canonical[number]) => run.steps.map((step) => [step.agent, step.content]);
    assert.deepEqual(back.map(said), runs.map(said));
    // A bad item is named by its place in the list.
    const list = JSON.parse(await readFile(out, 'utf8')) as { history: { content: unknown }[] }[];
    list[1]!.history[1]!.content = 5;
    await writeFile(out, JSON.stringify(list));
    const bad = await faultline('attribute', out);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /several\.json \(who-and-when\) at \[1\]\.history\[1\]\.content: /);
    await writeFile(out, JSON.stringify([list[0], { notes: 'not a run' }]));
    const unread = await faultline('attribute', out);
    assert.equal(unread.code, 2);
    assert.match(
      unread.stderr,
      /several\.json at \[1\]: unrecognised trace format \(top-level keys: notes\)/,
    );
  });

  it('reads a tau-bench results file as its runs, and says which the log records as a success', async () => {
    const file = join(FIXTURES, 'formats/tau-bench-results.json');
    const [text, json] = await Promise.all([
      faultline('attribute', file),
      faultline('attribute', file, '--json'),
    ]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout.match(/the log records this run as a success/g)?.length, 1);
    // Text output over several runs closes with which agents were named how often.
    assert.match(
      text.stdout,
      /\n\n2 runs\n {2}named {3}assistant 2\n {2}note {4}2 of them look unlike the runs the offline model learned from/,
    );
    assert.doesNotMatch(json.stdout, /2 runs/);
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; outcome?: string });
    assert.deepEqual(
      lines.map(({ id, outcome }) => [id, outcome]),
      [
        ['tau-bench-results-1', 'failure'],
        ['tau-bench-results-2', 'success'],
      ],
    );
    // Converted to messages, the runs keep their recorded outcomes.
    const out = join(folder, 'tau.json');
    assert.equal((await faultline('convert', file, '--out', out)).code, 0);
    const back = JSON.parse((await faultline('convert', out, '--to', 'canonical')).stdout) as {
      outcome: string;
    }[];
    assert.deepEqual(
      back.map((run) => run.outcome),
      ['failure', 'success'],
    );
  });

  it('treats an unknown option as bad usage', async () => {
    const result = await faultline('attribute', '--frobnicate');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown option/);
  });

  it('answers "no confident attribution" below --min-confidence, and checks the value', async () => {
    // Independent runs, started together: the suite spends most of its time starting processes.
    const [held, bad] = await Promise.all([
      faultline(
        'attribute',
        'examples/who-and-when-hc-6.json',
        '--min-confidence',
        '0.99',
        '--json',
      ),
      faultline('attribute', 'examples/who-and-when-hc-6.json', '--min-confidence', '5'),
    ]);
    assert.equal(held.code, 0, held.stderr);
    const line = JSON.parse(held.stdout) as { agent: null; step: null; candidates: unknown[] };
    assert.equal(line.agent, null);
    assert.equal(line.step, null);
    assert.ok(line.candidates.length > 0);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--min-confidence must be at least 0 and at most 1, got "5"/);
  });

  it("adapts to a user's own runs with train --base, weighting them up", async () => {
    const mine = join(folder, 'mine');
    await run('mkdir', ['-p', mine]);
    await run('cp', [join(FIXTURES, 'formats/aegis-flat.jsonl'), mine]);
    const out = join(folder, 'adapted.json');
    const withRule = (rule: string) =>
      faultline(
        'train',
        '--data',
        mine,
        '--base',
        'examples',
        '--unfamiliar-step',
        rule,
        '--out',
        `${out}.${rule}`,
      );
    const [result, missing, likeliest, bogus] = await Promise.all([
      faultline('train', '--data', mine, '--base', 'examples', '--user-weight', '3', '--out', out),
      faultline('train', '--data', mine, '--base', join(folder, 'nowhere')),
      withRule('likeliest'),
      withRule('bogus'),
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /trained on 4 labelled traces \(2 base, 2 yours counting 3× each\)/,
    );
    type Written = { training: { data: string[] }; decoding: { unfamiliarStep: string } };
    const written = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Written;
    const model = await written(out);
    assert.deepEqual(model.training.data.length, 2);
    // Which step a run unlike the step-labelled ones reports: by default its first rejected one,
    // else its most likely.
    assert.equal(model.decoding.unfamiliarStep, 'rejected-else-likeliest');
    assert.equal(likeliest.code, 0, likeliest.stderr);
    assert.equal((await written(`${out}.likeliest`)).decoding.unfamiliarStep, 'likeliest');
    assert.equal(bogus.code, 2);
    assert.match(
      bogus.stderr,
      /'bogus' is invalid. Allowed choices are first-failing, likeliest, rejected-else-likeliest/,
    );
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /--base: no labelled run could be read from .*nowhere; nothing was trained/,
    );
  });

  it('adapts the shipped model with --base alone, refusing the flags that only a refit reads', async () => {
    const mine = join(folder, 'mine-alone');
    await run('mkdir', ['-p', mine]);
    await run('cp', [join(FIXTURES, 'formats/aegis-flat.jsonl'), mine]);
    const out = join(folder, 'alone.json');
    const [adapted, refused] = await Promise.all([
      faultline('train', '--data', mine, '--base', '--out', out),
      faultline('train', '--data', mine, '--base', '--step-l2', '1', '--user-weight', '3'),
    ]);
    assert.equal(adapted.code, 0, adapted.stderr);
    assert.match(adapted.stderr, /adapted to your system from 2 labelled runs/);
    const model = JSON.parse(await readFile(out, 'utf8')) as {
      system?: { runs: number };
      training: { data: string[] };
    };
    assert.equal(model.system?.runs, 2);
    assert.ok(model.training.data.some((data) => data.endsWith('mine-alone')));
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /--user-weight, --step-l2: --base alone adapts the shipped model without fitting it/,
    );
  });

  it('says plainly when the training data has no labels', async () => {
    const unlabelled = join(folder, 'unlabelled.json');
    await writeFile(
      unlabelled,
      JSON.stringify({ history: [{ role: 'assistant', name: 'A', content: 'hello' }] }),
    );
    const result = await faultline('train', '--data', unlabelled, '--out', join(folder, 'x.json'));
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /need at least 2 labelled traces .*found 0 in .*unlabelled\.json \(1 without labels\)/,
    );
  });

  it('needs enough runs labelled with modes to learn failure modes', async () => {
    const result = await faultline(
      'train',
      '--data',
      'examples',
      '--modes-data',
      join(FIXTURES, 'formats/mad-mast-metagpt.json'),
      '--out',
      join(folder, 'modes.json'),
    );
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /--modes-data: need at least 20 runs labelled with MAST modes .*found 1 in/,
    );
  });

  it('counts a run given both as --data and as --modes-data once for failure modes', async () => {
    const runs = await mkdtemp(join(folder, 'mode-runs-'));
    const sample = JSON.parse(
      await readFile(join(FIXTURES, 'formats/mad-mast-metagpt.json'), 'utf8'),
    );
    for (let index = 0; index < 20; index += 1)
      await writeFile(
        join(runs, `${index}.json`),
        JSON.stringify({
          ...sample,
          history: [...sample.history, { role: 'user', name: 'Human', content: `run ${index}` }],
        }),
      );
    const result = await faultline(
      'train',
      '--data',
      'examples',
      runs,
      '--modes-data',
      runs,
      '--out',
      join(folder, 'twice.json'),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /MAST modes from 20 labelled runs/);
  });

  it('refuses an out-of-range training setting before reading any data', async () => {
    const result = await faultline('train', '--data', 'examples', '--earliest-share', '0');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--earliest-share must be above 0 and at most 1, got "0"/);
  });
});

describe('faultline eval', () => {
  it('reports methods and baselines, and writes every report kind', async () => {
    const home = await mkdtemp(join(tmpdir(), 'faultline-home-'));
    try {
      const reports = ['report.md', 'report.json', 'report.html'].map((name) => join(home, name));
      const result = await faultlineWith(
        { FAULTLINE_HOME: home },
        'eval',
        'examples',
        '--method',
        'first-agent,offline',
        '--include-train',
        '-o',
        ...reports,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /\| first-agent \(with GT\) \| Algorithm-Generated \| 1 \|/);
      assert.match(result.stdout, /random \(expected\)/);
      assert.match(result.stdout, /--include-train/);
      assert.match(result.stderr, /results stored in .*eval\/results-/);
      const json = JSON.parse(await readFile(reports[1]!, 'utf8')) as {
        rows: unknown[];
        records: unknown[];
      };
      assert.equal(json.records.length, 4);
      assert.match(await readFile(reports[2]!, 'utf8'), /<svg/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('scores failure modes on runs labelled only with modes, next to the constant baseline', async () => {
    const home = await mkdtemp(join(tmpdir(), 'faultline-home-'));
    try {
      const result = await faultlineWith(
        { FAULTLINE_HOME: home },
        'eval',
        join(FIXTURES, 'formats/mad-mast-metagpt.json'),
        '--method',
        'offline',
        '-o',
        join(home, 'modes.html'),
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Failure modes \(MAST\)/);
      assert.match(result.stdout, /\| offline \| 1 \| /);
      assert.match(result.stdout, /\| k most frequent modes \(for offline\) \| 1 \| /);
      assert.match(result.stdout, /\| 1\.1 Disobey task specification \| 1 \|/);
      assert.doesNotMatch(result.stdout, /lenient \(original\)/);
      assert.match(
        await readFile(join(home, 'modes.html'), 'utf8'),
        /<h2>Failure modes \(MAST\)<\/h2>/,
      );
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('prints the same cross-validated figures as `train --cv` for the same folds', async () => {
    const home = await mkdtemp(join(tmpdir(), 'faultline-home-'));
    try {
      // A small labelled set of both subsets: the shipped examples and a few synthetic traces.
      const data = join(home, 'data');
      await run('cp', ['-r', join(ROOT, 'examples'), data]);
      for (let index = 0; index < 6; index += 1) {
        const steps = [
          { role: 'user', name: 'human', content: `Task ${index}: add ${index} and 2.` },
          { role: 'assistant', name: 'Planner', content: 'Plan: Coder computes, Checker checks.' },
          { role: 'assistant', name: 'Coder', content: `The sum is ${index + 3}.` },
          { role: 'assistant', name: 'Checker', content: 'Looks right. TERMINATE' },
        ];
        await writeFile(
          join(data, `synthetic-${index}.json`),
          JSON.stringify({
            question: `Task ${index}: add ${index} and 2.`,
            ground_truth: String(index + 2),
            history: steps,
            mistake_agent: 'Coder',
            mistake_step: '2',
          }),
        );
      }
      const flags = ['--folds', '2', '--seeds', '0,1'];
      const env = { FAULTLINE_HOME: home };
      const [trained, evaluated] = await Promise.all([
        faultlineWith(
          env,
          'train',
          '--data',
          data,
          '--out',
          join(home, 'm.json'),
          '--cv',
          ...flags,
        ),
        faultlineWith(env, 'eval', data, '--method', 'offline-cv', '--both', ...flags),
      ]);
      assert.equal(trained.code, 0, trained.stderr);
      assert.equal(evaluated.code, 0, evaluated.stderr);
      const table = (text: string) => text.slice(text.indexOf('| method |'));
      assert.match(table(trained.stdout), /\| offline-cv \(without GT\) \| overall \| 8 \|/);
      assert.match(table(trained.stdout), /most frequent agent \(cross-validated\)/);
      assert.match(evaluated.stdout, /In the layout of the Who&When paper/);
      assert.match(evaluated.stdout, /Algorithm-Generated step, lenient/);
      assert.equal(table(evaluated.stdout), table(trained.stdout));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses an unknown report kind', async () => {
    const result = await faultline('eval', 'examples', '-o', 'report.pdf');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /report\.pdf: reports are \.html, \.md or \.json/);
  });

  it('says there is nothing to evaluate in runs without labels', async () => {
    const home = await mkdtemp(join(tmpdir(), 'faultline-eval-'));
    try {
      const result = await faultlineWith(
        { FAULTLINE_HOME: home },
        'eval',
        join(FIXTURES, 'formats/otlp-genai-semconv.json'),
      );
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        /nothing to evaluate: none of the 1 trace read from .*otlp-genai-semconv\.json is labelled/,
      );
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('faultline with a model provider', () => {
  it('runs an LLM method against a local OpenAI-compatible server and reports usage', async () => {
    const server = await startScriptedProvider('openai', [
      '{"agent": "Excel_Expert", "step": 0, "reason": "the code mishandled addresses"}',
    ]);
    try {
      const result = await faultline(
        'attribute',
        'examples/who-and-when-ag-58.json',
        '--method',
        'all-at-once',
        '--model',
        'openai-compatible:local',
        '--base-url',
        server.baseUrl,
        '--no-cache',
        '--json',
      );
      assert.equal(result.code, 0, result.stderr);
      const line = JSON.parse(result.stdout) as {
        agent: string;
        step: number;
        method: string;
        model: string;
        usage: { calls: number; inputTokens: number };
      };
      assert.equal(line.agent, 'Excel_Expert');
      assert.equal(line.step, 0);
      assert.equal(line.method, 'all-at-once');
      assert.equal(line.model, 'openai-compatible:local');
      assert.equal(line.usage.calls, 1);
      assert.equal(server.requests.length, 1);
      assert.match(server.requests[0]!.path, /\/v1\/chat\/completions$/);
    } finally {
      await server.close();
    }
  });

  it("runs the Who&When paper's prompts with --prompts paper, and refuses them where there are none", async () => {
    const record = 'src/attribution/llm/__fixtures__/paper/hand-crafted.json';
    const home = await mkdtemp(join(tmpdir(), 'faultline-paper-'));
    const halves = await startScriptedProvider('openai', Array(3).fill('upper half'));
    const verdicts = await startScriptedProvider('openai', [
      ...Array(3).fill('1. No.\n2. Reason: fine'),
      '1. Yes.\n2. Reason: a live album counted',
    ]);
    const model = ['--model', 'openai-compatible:local', '--no-cache', '--prompts'];
    try {
      const env = { FAULTLINE_HOME: home };
      const [attributed, evaluated, unknown, hybrid, offline, evalHybrid, evalOffline] =
        await Promise.all([
          faultlineWith(
            env,
            'attribute',
            record,
            '--method',
            'binary-search',
            ...model,
            'paper',
            '--base-url',
            halves.baseUrl,
            '--json',
          ),
          faultlineWith(
            env,
            'eval',
            record,
            '--method',
            'step-by-step',
            ...model,
            'paper',
            '--base-url',
            verdicts.baseUrl,
          ),
          faultline('attribute', record, '--prompts', 'nonsense'),
          faultline('attribute', record, '--method', 'hybrid', ...model, 'paper'),
          faultline('attribute', record, '--prompts', 'paper'),
          faultline(
            'eval',
            record,
            '--method',
            'step-by-step,hybrid',
            ...model,
            'paper',
            '--base-url',
            'http://127.0.0.1:9/v1',
          ),
          faultline('eval', record, '--method', 'offline,first-agent', '--prompts', 'paper'),
        ]);
      assert.equal(attributed.code, 0, attributed.stderr);
      const line = JSON.parse(attributed.stdout) as Record<string, unknown>;
      assert.deepEqual([line.step, line.prompts], [0, 'paper']);
      assert.deepEqual(line.lenient, { agent: 'human', step: 0, reason: line.reason });
      assert.equal(evaluated.code, 0, evaluated.stderr);
      assert.match(evaluated.stdout, /In the layout of the Who&When paper/);
      assert.match(
        evaluated.stdout,
        /\| step-by-step \[openai-compatible:local, paper prompts\] \(with GT\) \| 100\.0 \| 100\.0 \| 100\.0 \|/,
      );
      assert.match(
        evaluated.stdout,
        /step-by-step \[openai-compatible:local, paper prompts, tolerant reading\]/,
      );
      assert.equal(verdicts.requests.length, 4, 'the tolerant reading reads the same replies');
      assert.deepEqual(
        [unknown.code, unknown.stderr],
        [2, 'faultline: --prompts must be one of faultline, paper, got "nonsense"\n'],
      );
      assert.match(hybrid.stderr, /^faultline: hybrid has no paper prompts: .*\n$/);
      assert.match(
        offline.stderr,
        /^faultline: --prompts paper gives an LLM method .*--method offline sends none/,
      );
      // eval refuses the same, before any call: hybrid among its methods, or no LLM method.
      assert.deepEqual(
        [evalHybrid.code, evalHybrid.stdout],
        [2, ''],
        'eval refuses hybrid with paper prompts',
      );
      assert.match(evalHybrid.stderr, /^faultline: hybrid has no paper prompts: .*\n$/);
      assert.equal(evalOffline.code, 2);
      assert.match(
        evalOffline.stderr,
        /^faultline: --prompts paper gives LLM methods .*none of offline, first-agent sends any/,
      );
    } finally {
      await Promise.all([halves.close(), verdicts.close()]);
      await rm(home, { recursive: true, force: true });
    }
  });

  it('says in one line that a key is missing, and that offline needs none', async () => {
    const result = await faultlineWith(
      { OPENAI_API_KEY: undefined },
      'attribute',
      'examples/who-and-when-ag-58.json',
      '--method',
      'hybrid',
      '--model',
      'openai:gpt-4o',
    );
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      'faultline: OPENAI_API_KEY is not set: export your openai API key to use openai:gpt-4o, or use --method offline, which needs no key\n',
    );
  });
});
