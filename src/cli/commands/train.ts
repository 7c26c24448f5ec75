/**
 * `faultline train --data <folder>... --out <file>`: fit the offline model on labelled traces;
 * `--cv` also prints the cross-validated table of docs/MODEL.md.
 */
import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { Command } from 'commander';
import {
  DEFAULT_TRAIN_SETTINGS,
  isTrainable,
  trainOfflineModel,
} from '../../attribution/offline/train.js';
import { UserError } from '../../errors.js';
import { crossValidationReport, reportMarkdown } from '../../eval/cross-validation-report.js';
import type { Trace } from '../../trace/model.js';
import { forEachTrace, finishBatch } from '../batch.js';

interface TrainFlags {
  data: string[];
  out: string;
  cv?: boolean;
  folds: string;
  seeds: string;
  stepL2: string;
  agentL2: string;
}

function positiveNumber(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0)
    throw new UserError(`${flag} must be a non-negative number, got "${value}"`);
  return number;
}

export function registerTrain(program: Command, exit: (code: number) => void): void {
  program
    .command('train')
    .description('train the offline model on labelled traces (reproduces the shipped model)')
    .requiredOption('-d, --data <folders...>', 'labelled trace files or folders (e.g. Who&When)')
    .option('-o, --out <file>', 'where to write the model', 'models/offline-model.json')
    .option(
      '--cv',
      'also print cross-validated accuracy next to baselines (folds grouped by question)',
    )
    .option('--folds <k>', 'cross-validation folds', '5')
    .option('--seeds <list>', 'comma-separated fold seeds, each a full k-fold run', '0,1,2')
    .option(
      '--step-l2 <value>',
      'L2 penalty of the step model',
      String(DEFAULT_TRAIN_SETTINGS.stepL2),
    )
    .option(
      '--agent-l2 <value>',
      'L2 penalty of the agent model',
      String(DEFAULT_TRAIN_SETTINGS.agentL2),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  faultline train --data ../shared/datasets/who-and-when --out models/offline-model.json\n  faultline train --data ../shared/datasets/who-and-when --out /tmp/m.json --cv',
    )
    .action(async (flags: TrainFlags) => {
      const traces: Trace[] = [];
      const outcome = await forEachTrace(flags.data, {}, (trace) => {
        traces.push(trace);
      });
      const usable = traces.filter(isTrainable);
      if (usable.length < 2)
        throw new UserError(
          `need at least 2 traces with agent and step labels; found ${usable.length} in ${flags.data.join(', ')}`,
        );
      const settings = {
        ...DEFAULT_TRAIN_SETTINGS,
        stepL2: positiveNumber(flags.stepL2, '--step-l2'),
        agentL2: positiveNumber(flags.agentL2, '--agent-l2'),
      };
      const data = flags.data.map((path) => relative(process.cwd(), path) || '.');
      const model = trainOfflineModel(usable, settings, data);
      await writeFile(flags.out, `${JSON.stringify(model, null, 1)}\n`).catch((error: unknown) => {
        throw new UserError(
          `${flags.out}: cannot write the model (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
          { cause: error },
        );
      });
      process.stderr.write(
        `trained on ${usable.length} labelled traces (${traces.length - usable.length} without usable labels skipped); wrote ${flags.out}\n`,
      );
      if (flags.cv) {
        const folds = Math.round(positiveNumber(flags.folds, '--folds'));
        if (folds < 2) throw new UserError('--folds must be at least 2');
        const seeds = flags.seeds
          .split(',')
          .map((seed) => Math.round(positiveNumber(seed.trim(), '--seeds')));
        const rows = crossValidationReport(usable, {
          folds,
          seeds,
          settings,
          onFold: (done, total) =>
            process.stderr.isTTY &&
            process.stderr.write(`\rcross-validating: fold ${done}/${total}`),
        });
        if (process.stderr.isTTY) process.stderr.write('\n');
        process.stdout.write(`${reportMarkdown(rows)}\n`);
      }
      exit(finishBatch(outcome));
    });
}
