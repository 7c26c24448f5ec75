/**
 * `faultline rerun --run CMD --check CMD --upstream URL -n N`: runs a system N times through the
 * recording proxy against its real upstream (src/recording/rerun/rerun.ts), each run's outcome from
 * the check, and writes the runs to one folder for `faultline spectrum`. Ctrl-C stops the runs in
 * flight and keeps the finished ones.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { databaseLocation, faultlineHome } from '../../config.js';
import { UserError } from '../../errors.js';
import type { RerunRun } from '../../recording/rerun/rerun.js';
import { nonNegativeNumber, wholeNumber } from '../flag-values.js';
import { priceOverrides } from '../llm-options.js';

interface RerunFlags {
  run: string;
  check: string;
  upstream: string;
  anthropicUpstream?: string;
  count: string;
  concurrency: string;
  maxCalls?: string;
  maxCost?: string;
  prices?: string;
  task?: string;
  out?: string;
  store: boolean;
  timeout: string;
  json?: boolean;
}

/** Registers `faultline rerun`. */
export function registerRerun(program: Command, exit: (code: number) => void): void {
  program
    .command('rerun')
    .description('run a system N times through the recording proxy, each run checked, for spectrum')
    .requiredOption('--run <command>', 'the shell command that runs the system once')
    .requiredOption(
      '--check <command>',
      "the shell command whose exit status is the run's outcome (0: passed)",
    )
    .requiredOption('--upstream <url>', 'where model calls go, e.g. https://api.openai.com/v1')
    .option('--anthropic-upstream <url>', 'where Anthropic Messages calls go (default: --upstream)')
    .option('-n, --count <n>', 'runs to make', '20')
    .option('--concurrency <n>', 'runs at once', '1')
    .option(
      '--max-calls <n>',
      'most model calls over all runs; calls past it are refused and no run starts after',
    )
    .option(
      '--max-cost <usd>',
      "most estimated dollars over all runs (tokens the upstream reports × the model's list price); calls past it are refused and no run starts after",
    )
    .option(
      '--prices <file>',
      'prices that override the built-in table, for --max-cost (default: $FAULTLINE_PRICES): {"openai:my-model": {"input": 2.5, "output": 10}} (USD per million tokens)',
    )
    .option(
      '--task <id>',
      "the runs' task, recorded on each (default: a fingerprint of the task text)",
    )
    .option(
      '--out <dir>',
      'folder the runs are written to (default: $FAULTLINE_HOME/reruns/<task or time>)',
    )
    .option('--no-store', 'do not store runs in the database the page reads')
    .option('--timeout <seconds>', 'longest the run command, and then the check, may take', '600')
    .option('--json', "one JSON object at the end: the folder and each run's id, outcome and calls")
    .addHelpText(
      'after',
      "\nExamples:\n  faultline rerun -n 20 --concurrency 4 --upstream https://api.openai.com/v1 \\\n    --run 'python my_team.py --out answer-$FAULTLINE_RERUN_RUN.json' \\\n    --check 'python check.py answer-$FAULTLINE_RERUN_RUN.json'\n  faultline spectrum ~/.faultline/reruns/<folder>\n\nEach run gets a proxy of its own: the commands see OPENAI_BASE_URL, ANTHROPIC_BASE_URL,\nFAULTLINE_RERUN_RUN (the run id) and FAULTLINE_RERUN_INDEX (1 to N).",
    )
    .action(async (flags: RerunFlags) => {
      const count = wholeNumber(flags.count, '--count', 1);
      const concurrency = wholeNumber(flags.concurrency, '--concurrency', 1);
      const maxCalls =
        flags.maxCalls === undefined ? undefined : wholeNumber(flags.maxCalls, '--max-calls', 1);
      const maxCostUsd = flags.maxCost === undefined ? undefined : dollarsOf(flags.maxCost);
      const prices = priceOverrides(flags.prices);
      const timeoutMs = wholeNumber(flags.timeout, '--timeout', 1) * 1000;
      const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
      const folder = flags.out ?? join(faultlineHome(), 'reruns', flags.task ?? `rerun-${stamp}`);
      const [{ rerun }, store] = await Promise.all([
        import('../../recording/rerun/rerun.js'),
        flags.store ? openRunStore() : Promise.resolve(undefined),
      ]);
      const controller = new AbortController();
      const interrupt = () => {
        process.stderr.write('faultline rerun: stopping; the finished runs are kept\n');
        controller.abort();
      };
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      try {
        const result = await rerun({
          run: flags.run,
          check: flags.check,
          upstream: flags.upstream,
          ...(flags.anthropicUpstream ? { anthropicUpstream: flags.anthropicUpstream } : {}),
          count,
          concurrency,
          ...(maxCalls === undefined ? {} : { maxCalls }),
          ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
          ...(prices ? { prices } : {}),
          ...(flags.task ? { task: flags.task } : {}),
          folder,
          ...(store ? { store: store.store } : {}),
          timeoutMs,
          signal: controller.signal,
          onRun: (run, finished, costUsd) =>
            process.stderr.write(
              `${progressLine(run, { finished, count, costUsd, maxCostUsd })}\n`,
            ),
        });
        const failed = result.runs.filter((run) => run.outcome === 'failure').length;
        const passed = result.runs.filter((run) => run.outcome === 'success').length;
        if (flags.json) process.stdout.write(`${JSON.stringify({ folder, ...result })}\n`);
        else
          process.stdout.write(
            `${result.runs.length} of ${count} runs in ${folder}: ${failed} failed, ${passed} passed, ${result.calls} model calls, ${dollars(result.costUsd)} estimated${result.stopped ? ` (stopped: ${STOPPED[result.stopped]})` : ''}${unpricedNote(result.unpricedModels)}${unmeteredNote(result.unmeteredCalls)}\nnext: faultline spectrum ${folder}\n`,
          );
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
        await store?.close();
      }
      exit(0);
    });
}

/** Why runs stopped, in words. */
const STOPPED = {
  calls: 'the call budget is spent',
  cost: 'the cost budget is spent',
  interrupted: 'interrupted',
} as const;

const dollars = (usd: number) => `$${usd.toFixed(usd < 1 ? 4 : 2)}`;

/** How far a rerun is. */
interface Progress {
  finished: number;
  count: number;
  costUsd: number;
  maxCostUsd: number | undefined;
}

/** `[###.................] 3/20 run 3: failed, 7 calls, $0.0123 (total $0.0351 of $1.00)`, as each run ends. */
function progressLine(run: RerunRun, { finished, count, costUsd, maxCostUsd }: Progress): string {
  const ended = run.stopped
    ? `no outcome (${STOPPED[run.stopped]})`
    : run.outcome === 'success'
      ? 'passed'
      : 'failed';
  const bar = `${'#'.repeat(Math.round((20 * finished) / count)).padEnd(20, '.')}`;
  const bound = maxCostUsd === undefined ? '' : ` of ${dollars(maxCostUsd)}`;
  return `[${bar}] ${finished}/${count} run ${run.index}: ${ended}, ${run.calls} call${run.calls === 1 ? '' : 's'}, ${dollars(run.costUsd)} (total ${dollars(costUsd)}${bound})`;
}

/** --max-cost: dollars above zero. */
function dollarsOf(value: string): number {
  const usd = nonNegativeNumber(value, '--max-cost');
  if (usd === 0) throw new UserError('--max-cost must be above 0 (dollars over all runs), got "0"');
  return usd;
}

/** Says how many calls the estimate leaves out, their upstream having reported no tokens. */
function unmeteredNote(calls: number): string {
  if (calls === 0) return '';
  return `\n${calls} call${calls === 1 ? '' : 's'} reported no token usage: their cost is unknown and counts $0 (a streamed Chat Completion reports usage only when the client asks, with stream_options.include_usage)`;
}

/** Says which models the estimate leaves out. */
function unpricedNote(models: readonly string[]): string {
  if (models.length === 0) return '';
  return `\nno price known for ${models.join(', ')}: their calls count $0 (give prices with --prices FILE)`;
}

/** The database's runs table, for the page; `close` closes the database. */
async function openRunStore() {
  const [{ openDatabase }, { RunStore }] = await Promise.all([
    import('../../store/database.js'),
    import('../../store/runs.js'),
  ]);
  const db = await openDatabase(databaseLocation());
  return { store: new RunStore(db), close: () => db.close() };
}
