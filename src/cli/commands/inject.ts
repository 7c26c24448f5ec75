/**
 * `faultline inject --run CMD --check CMD --tasks FILE --plans N --out DIR`: labelled failures of
 * your own system. Each task runs once cleanly through the proxy (it must pass the check), then
 * once per generated plan with one fault injected; the runs that then fail are the dataset.
 */
import type { Command } from 'commander';
import type { CampaignSummary, Counts } from '../../recording/inject/campaign.js';
import { UserError } from '../../errors.js';
import { MAST_MODES, mastCode } from '../../trace/mast.js';
import { wholeNumber } from '../flag-values.js';

/** The flags of `inject`, which `adapt` shares. */
export interface InjectFlags {
  run: string;
  check: string;
  tasks: string;
  plans: string;
  modes?: string;
  operators?: string;
  out: string;
  upstream: string;
  anthropicUpstream?: string;
  seed: string;
  concurrency: string;
  manipulator?: string;
  manipulatorBaseUrl?: string;
  temperature: string;
  timeout: string;
}

/** The progress bar on standard error. */
function progressBar(): (progress: {
  done: number;
  total: number;
  kept: number;
  discarded: number;
}) => void {
  const interactive = Boolean(process.stderr.isTTY);
  return ({ done, total, kept, discarded }) => {
    const width = 24;
    const filled = total > 0 ? Math.round((done / total) * width) : width;
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} plans, ${kept} kept, ${discarded} discarded`;
    if (interactive) process.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
    else if (done === total || done % Math.max(1, Math.ceil(total / 10)) === 0)
      process.stderr.write(`${line}\n`);
  };
}

/** The MAST modes --modes names (all 14 by default), as codes. */
function parseModes(flags: InjectFlags): string[] {
  return (flags.modes ?? MAST_MODES.map((mode) => mode.code).join(','))
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean)
    .map((value) => {
      const code = mastCode(value);
      if (!code)
        throw new UserError(`--modes: "${value}" is not a MAST mode; use codes 1.1 to 3.3`);
      return code;
    });
}

/** The operators --operators names, each checked against the catalog's names. */
function parseOperators(
  flags: InjectFlags,
  catalog: { strategyOf(name: string): unknown; names(): string[] },
): string[] | undefined {
  const operators = flags.operators
    ?.split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  for (const operator of operators ?? [])
    if (!catalog.strategyOf(operator))
      throw new UserError(
        `--operators: unknown operator "${operator}"; choose from ${catalog.names().join(', ')}`,
      );
  if (operators?.includes('manipulator') && !flags.manipulator)
    throw new UserError('--operators manipulator needs --manipulator provider:model');
  return operators;
}

/** The manipulator's temperature, a number of 0 or more. */
function parseTemperature(flags: InjectFlags): number {
  const temperature = Number(flags.temperature);
  if (!Number.isFinite(temperature) || temperature < 0)
    throw new UserError(`--temperature must be a number of 0 or more, got "${flags.temperature}"`);
  return temperature;
}

/** The campaign's summary for a reader: kept and discarded, by mode, operator and agent. */
function summaryText(summary: CampaignSummary, out: string): string {
  const rows = (title: string, counts: Counts) =>
    `${title}:\n${Object.entries(counts)
      .sort(([left], [right]) => left.localeCompare(right))
      .map(
        ([name, count]) => `  ${name.padEnd(22)} kept ${count.kept}, discarded ${count.discarded}`,
      )
      .join('\n')}\n`;
  return (
    `${summary.kept} of ${summary.plans} injected runs failed their check and were kept in ${out}/runs` +
    `${
      Object.keys(summary.byReason).length > 0
        ? ` (discarded: ${Object.entries(summary.byReason)
            .map(([reason, count]) => `${count} ${reason}`)
            .join(', ')})`
        : ''
    }\n` +
    rows('by mode', summary.byMode) +
    rows('by operator', summary.byOperator) +
    rows('by agent', summary.byAgent) +
    (summary.manipulator
      ? `manipulator: ${summary.manipulator.calls} calls, ${summary.manipulator.inputTokens} / ${summary.manipulator.outputTokens} tokens, ${summary.manipulator.costUsd === undefined ? 'cost unknown' : `$${summary.manipulator.costUsd.toFixed(4)}`}\n`
      : '')
  );
}

/** Runs the campaign the flags describe, with a progress bar, and prints its summary. */
export async function campaignOf(flags: InjectFlags): Promise<CampaignSummary> {
  const modes = parseModes(flags);
  const [{ runCampaign, readTasks }, { operatorCatalog }, { Manipulator }] = await Promise.all([
    import('../../recording/inject/campaign.js'),
    import('../../recording/inject/operators.js'),
    import('../../recording/inject/manipulator.js'),
  ]);
  const operators = parseOperators(flags, operatorCatalog);
  const temperature = parseTemperature(flags);
  const manipulator = flags.manipulator
    ? new Manipulator({
        model: flags.manipulator,
        ...(flags.manipulatorBaseUrl ? { baseUrl: flags.manipulatorBaseUrl } : {}),
        temperature,
        log: (line) => process.stderr.write(`faultline inject: ${line}\n`),
      })
    : undefined;
  const summary = await runCampaign({
    run: flags.run,
    check: flags.check,
    tasks: readTasks(flags.tasks),
    plans: wholeNumber(flags.plans, '--plans', 1),
    modes,
    ...(operators ? { operators } : {}),
    out: flags.out,
    upstream: flags.upstream,
    ...(flags.anthropicUpstream ? { anthropicUpstream: flags.anthropicUpstream } : {}),
    seed: wholeNumber(flags.seed, '--seed', 0),
    concurrency: wholeNumber(flags.concurrency, '--concurrency', 1),
    ...(manipulator ? { manipulator } : {}),
    timeoutMs: wholeNumber(flags.timeout, '--timeout', 1) * 1000,
    onProgress: progressBar(),
  });
  process.stderr.write(summaryText(summary, flags.out));
  return summary;
}

/** The command's action: the campaign run, its summary written. */
async function runInject(flags: InjectFlags, exit: (code: number) => void): Promise<void> {
  const summary = await campaignOf(flags);
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  exit(0);
}

/** The flags a campaign takes, shared by `inject` and `adapt`. */
export function addCampaignOptions(command: Command): Command {
  return command
    .requiredOption('--run <command>', 'runs the system once (a shell command line)')
    .requiredOption('--check <command>', 'exits 0 when the run succeeded')
    .requiredOption('--tasks <file>', 'JSON Lines, one task per line (an object with an id)')
    .requiredOption('--upstream <url>', 'where model calls go (as for faultline proxy)')
    .option('--anthropic-upstream <url>', 'where Anthropic Messages calls go (default: --upstream)')
    .option('--plans <n>', 'injected runs per task', '4')
    .option('--modes <list>', 'MAST modes to inject, comma-separated (default: all 14)')
    .option('--operators <list>', "operators plans may use (default: each mode's own)")
    .requiredOption('--out <dir>', 'the dataset folder (rerun to resume)')
    .option('--seed <n>', 'seed of the plans drawn', '0')
    .option('--concurrency <n>', 'runs at once', '2')
    .option('--manipulator <provider:model>', 'a model that writes the corruptions')
    .option('--manipulator-base-url <url>', "the manipulator's endpoint")
    .option('--temperature <t>', "the manipulator's temperature", '0.7')
    .option('--timeout <seconds>', 'longest a run, and a check, may take', '300');
}

/** `faultline inject`: its flags and help, and the action that runs a campaign. */
export function registerInject(program: Command, exit: (code: number) => void): void {
  addCampaignOptions(
    program
      .command('inject')
      .description(
        'inject known faults into runs of your own system and keep the runs that then fail: a labelled dataset',
      ),
  )
    .addHelpText(
      'after',
      `
Each command gets the proxy (OPENAI_BASE_URL, ANTHROPIC_BASE_URL), the run id (FAULTLINE_RUN; send it
as x-faultline-run), the task (FAULTLINE_TASK, its JSON line; FAULTLINE_TASK_ID) and a folder of its
own (FAULTLINE_WORK_DIR). In the command lines {id}, {work}, {task} (the JSON) and {field} (a field of
the task) are replaced, shell-quoted.

Example (the example team, with its scripted model on port 8700):
  faultline inject --upstream http://127.0.0.1:8700/v1 --tasks tasks.jsonl --plans 4 --out injected \\
    --run 'node --import tsx examples/agent-team/team.ts --task {id} --out {work}/answer.json' \\
    --check 'node --import tsx examples/agent-team/check.ts --task {id} --answer {work}/answer.json'
  faultline eval injected/runs --method offline -o report.html`,
    )
    .action((flags: InjectFlags) => runInject(flags, exit));
}
