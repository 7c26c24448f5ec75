/**
 * `faultline spectrum <runs...>`: spectrum analysis over the runs of one task (files or folders;
 * docs/SPECTRUM.md): the units that recur in failing runs and not in passing ones, the agents, and
 * the suspicious steps of one failed run. Text by default; `--json` writes the whole analysis.
 */
import type { Command } from 'commander';
import { FORMULAS, DEFAULT_FORMULA } from '../../attribution/spectrum/formulas.js';
import { analyseSpectrum } from '../../attribution/spectrum/rank.js';
import { UserError } from '../../errors.js';
import type { Trace } from '../../trace/model.js';
import { finishBatch } from '../batch.js';
import { wholeNumber } from '../flag-values.js';
import { renderSpectrum } from '../render-spectrum.js';
import { readTaskRuns, storedTaskRuns } from '../task-runs.js';

interface SpectrumFlags {
  task?: string;
  oneTask?: boolean;
  failed?: string;
  formula: string;
  factors: boolean;
  top: string;
  json?: boolean;
  format?: string;
}

/** The run `--failed` names: by file (as given or its end) or by run id. */
function pickFailed(runs: readonly Trace[], name: string | undefined): Trace | undefined {
  if (name === undefined) return undefined;
  const found = runs.find(
    (run) =>
      run.source === name ||
      run.id === name ||
      (run.source !== undefined && run.source.endsWith(`/${name}`)),
  );
  if (!found)
    throw new UserError(
      `--failed ${name} is none of the ${runs.length} runs read (give its file or run id)`,
    );
  return found;
}

/** Without files, the task to read from the store; --task is then needed. */
function storeTask(task: string | undefined): string {
  if (task === undefined)
    throw new UserError(
      'give the runs to compare (files or folders), or --task ID to read the runs of that task from the store',
    );
  return task;
}

/** Registers `faultline spectrum`. */
export function registerSpectrum(program: Command, exit: (code: number) => void): void {
  program
    .command('spectrum')
    .description(
      'rank the agents and steps of a task by how they recur in its failing and passing runs',
    )
    .argument(
      '[runs...]',
      'run files or folders (searched recursively) of one task; none: the runs of --task in the store',
    )
    .option(
      '--task <id>',
      'use the runs of this task among those read (their declared task or text fingerprint)',
    )
    .option('--one-task', 'treat every run read as a run of one task')
    .option(
      '--failed <run>',
      'the failed run whose steps to rank (its file or run id; default: the last failing run)',
    )
    .option(
      '--formula <name>',
      `suspiciousness formula: ${[...FORMULAS.keys()].join(', ')}`,
      DEFAULT_FORMULA,
    )
    .option('--no-factors', "leave out FAMAS's repeat, agent-activation and action-share factors")
    .option('--top <n>', 'units shown', '10')
    .option('--json', 'the whole analysis as one JSON object')
    .option('--format <name>', 'read the runs as this format instead of detecting it')
    .addHelpText(
      'after',
      "\nExamples:\n  faultline spectrum runs/\n  faultline spectrum runs/ --failed runs/run-7.json --formula ochiai\n  faultline spectrum passed/ failed/ --one-task --json\n  faultline spectrum --task nightly-pricing\n\nA run's outcome is read from the run (a recorded outcome, Who&When's is_correct), else from its\nfolder: files under a folder named passed/ passed, under failed/ failed. docs/SPECTRUM.md has the formulas.",
    )
    .action(async (paths: string[], flags: SpectrumFlags) => {
      const top = wholeNumber(flags.top, '--top', 1);
      const { task, runs, batch } =
        paths.length > 0
          ? await readTaskRuns(paths, {
              ...(flags.format ? { format: flags.format } : {}),
              ...(flags.task ? { task: flags.task } : {}),
              ...(flags.oneTask ? { oneTask: true } : {}),
            })
          : await storedTaskRuns(storeTask(flags.task));
      const failed = pickFailed(runs, flags.failed);
      const result = analyseSpectrum(runs, {
        formula: flags.formula,
        factors: flags.factors,
        ...(failed ? { failed } : {}),
      });
      process.stdout.write(
        flags.json
          ? `${JSON.stringify({ task, ...result })}\n`
          : `${renderSpectrum(result, task, top)}\n`,
      );
      exit(finishBatch(batch));
    });
}
