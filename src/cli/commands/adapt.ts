/**
 * `faultline adapt --run CMD --check CMD --tasks FILE --out DIR`: inject → train → eval in one go.
 * Injects faults into runs of your system (as `inject`), adapts the shipped model to the failed
 * runs (as `train --base`) and prints the before/after table beside the baselines, each task's runs
 * measured by what learned from the other tasks' alone. Writes the adapted model (learned from
 * every run) to DIR/adapted-model.json.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../errors.js';
import type { Trace } from '../../trace/model.js';
import { systemLine } from './system-line.js';
import { addCampaignOptions, campaignOf, type InjectFlags } from './inject.js';

interface AdaptFlags extends InjectFlags {
  modelOut?: string;
}

/** A JSON file the campaign wrote, or a one-line error naming it. */
function readJson<Value>(file: string): Value {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Value;
  } catch (error) {
    throw new UserError(
      `${file}: cannot read it (${error instanceof SyntaxError ? 'not valid JSON' : ((error as NodeJS.ErrnoException).code ?? String(error))}); rerun the campaign into a fresh --out`,
      { cause: error },
    );
  }
}

/**
 * The kept runs of the campaign's folder for these tasks (a folder reused with other tasks keeps
 * their plans too), by task, read from plans/ as the campaign wrote them.
 */
function keptRunsByTask(out: string, tasks: ReadonlySet<string>): Map<string, Trace[]> {
  const byTask = new Map<string, Trace[]>();
  const plans = join(out, 'plans');
  for (const name of readdirSync(plans)
    .filter((file) => file.endsWith('.json'))
    .sort()) {
    const plan = readJson<{ id: string; task: string; kept: boolean }>(join(plans, name));
    const file = join(out, 'runs', `${plan.id}.json`);
    if (!plan.kept || !tasks.has(plan.task) || !existsSync(file)) continue;
    const trace = { ...readJson<Trace>(file), source: file };
    byTask.set(plan.task, [...(byTask.get(plan.task) ?? []), trace]);
  }
  return byTask;
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

/** Writes a file, or says plainly why it cannot. */
async function writeOut(file: string, text: string): Promise<void> {
  await writeFile(file, `${text}\n`).catch((error: unknown) => {
    throw new UserError(
      `${file}: cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { cause: error },
    );
  });
}

/** The command's action. */
async function runAdapt(flags: AdaptFlags, exit: (code: number) => void): Promise<void> {
  await campaignOf(flags);
  const { readTasks } = await import('../../recording/inject/campaign.js');
  const tasks = new Set(readTasks(flags.tasks).map((task) => task.id));
  const byTask = keptRunsByTask(flags.out, tasks);
  if (byTask.size < 2)
    throw new UserError(
      `${flags.out}: adapt needs failed injected runs of at least two tasks (to learn from some and measure on another); ${byTask.size === 0 ? 'no run was kept' : 'only one task has kept runs'}: add tasks or --plans`,
    );
  const [{ loadOfflineModel }, { adaptAndMeasure, ADAPTED_ROW, SHIPPED_ROW }] = await Promise.all([
    import('../../attribution/offline/attribute/attributor.js'),
    import('../../eval/adaptation.js'),
  ]);
  const { adapted, rows } = adaptAndMeasure(
    loadOfflineModel(),
    [...byTask.values()],
    [join(flags.out, 'runs')],
  );
  const runs = [...byTask.values()].reduce((sum, group) => sum + group.length, 0);
  const modelOut = flags.modelOut ?? join(flags.out, 'adapted-model.json');
  await writeOut(modelOut, JSON.stringify(adapted, null, 1));
  await writeOut(
    join(flags.out, 'adaptation.json'),
    JSON.stringify({ tasks: byTask.size, runs, rows }, null, 2),
  );
  const before = rows.find((row) => row.method === SHIPPED_ROW)!;
  const after = rows.find((row) => row.method === ADAPTED_ROW)!;
  process.stdout.write(
    `${runs} failed runs of ${byTask.size} tasks, each task's runs named by what learned from the other tasks' alone:\n\n` +
      `| method | agent | step | runs |\n|---|---|---|---|\n${rows
        .map(
          (row) =>
            `| ${row.method}${row.baseline ? ' (baseline)' : ''} | ${percent(row.agent)} | ${percent(row.step)} | ${row.runs} |`,
        )
        .join('\n')}\n\n` +
      `agent ${percent(before.agent)} → ${percent(after.agent)}, step ${percent(before.step)} → ${percent(after.step)}. ` +
      (adapted.system ? `\n${systemLine(adapted.system)}\n` : '') +
      `The adapted model is ${modelOut}: faultline attribute RUN --model-file ${modelOut}\n`,
  );
  exit(0);
}

/** `faultline adapt`: the campaign's flags and where the adapted model goes. */
export function registerAdapt(program: Command, exit: (code: number) => void): void {
  addCampaignOptions(
    program
      .command('adapt')
      .description(
        "inject faults into runs of your system, adapt the offline model to the failed runs, and compare it with the shipped model and the baselines, each task's runs named by what learned from the other tasks' alone",
      ),
  )
    .option('--model-out <file>', 'where the adapted model goes (default: DIR/adapted-model.json)')
    .action((flags: AdaptFlags) => runAdapt(flags, exit));
}
