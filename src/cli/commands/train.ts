/**
 * `faultline train --data <folder>... --out <file>`: fit the offline model on labelled traces;
 * `--cv` also prints the cross-validated table of docs/MODEL.md.
 */
import { Option, type Command } from 'commander';
import {
  DEFAULT_TRAIN_SETTINGS,
  UNFAMILIAR_STEPS,
} from '../../attribution/offline/model/settings.js';
import { addFoldOptions } from '../fold-options.js';
import type { TrainFlags } from './train-flags.js';

export function registerTrain(program: Command, exit: (code: number) => void): void {
  const command = program
    .command('train')
    .description('train the offline model on labelled traces (reproduces the shipped model)')
    .requiredOption('-d, --data <folders...>', 'labelled trace files or folders (e.g. Who&When)')
    .option(
      '-o, --out <file>',
      'where to write the model (default: models/offline-model.json; with --base, adapted-model.json)',
    )
    .option(
      '--modes-data <folders...>',
      'runs labelled with MAST failure modes to train the mode classifier on (e.g. mad-mast, aegis); runs of --data with mode labels are used too',
    )
    .option(
      '--base [folders...]',
      'adapt to your own system (the runs of --data): alone, the shipped model learns which of your agents are usually to blame, needing nothing but this package; with folders, it is also refitted on them and your runs, each of yours counting --user-weight times',
    )
    .option(
      '--user-weight <x>',
      'with --base: how much each of your runs counts against a base run',
      '5',
    )
    .option('--balance-systems', 'give every system (subset or folder) an equal share of the fit')
    .option(
      '--drop-features <names>',
      'comma-separated step or agent features to leave out of the fit (see docs/MODEL.md)',
    )
    .option(
      '--cv',
      'also print cross-validated accuracy next to baselines (folds grouped by question)',
    )
    .option(
      '--loso',
      'also print leave-one-system-out accuracy: each system (subset or folder) predicted by a model trained on the others',
    )
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
    .option(
      '--agent-weight <value>',
      "weight of the agent model in each step's joint score",
      String(DEFAULT_TRAIN_SETTINGS.agentWeight),
    )
    .option(
      '--earliest-share <value>',
      'name the agent of the earliest step scoring at least this share of the top step (0 < v ≤ 1)',
      String(DEFAULT_TRAIN_SETTINGS.earliestShare),
    )
    .option(
      '--unfamiliar-agent-weight <value>',
      'for runs unlike the training runs: the agent weight, and the top step named (no earliest-step rule)',
      String(DEFAULT_TRAIN_SETTINGS.unfamiliarAgentWeight),
    )
    .addOption(
      new Option(
        '--unfamiliar-step <which>',
        "for runs unlike the step-labelled training runs: name the agent's first failing step or its most likely one",
      )
        .choices(UNFAMILIAR_STEPS)
        .default(DEFAULT_TRAIN_SETTINGS.unfamiliarStep),
    )
    .option(
      '--unfamiliar-rejected-share <value>',
      'for runs unlike the training runs: of the agents at least this share as likely as the most likely, name the one whose output is rejected first (0 turns it off)',
      String(DEFAULT_TRAIN_SETTINGS.unfamiliarRejectedShare),
    );
  addFoldOptions(command)
    .addHelpText(
      'after',
      '\nExamples:\n  faultline train --data ../shared/datasets/who-and-when ../shared/datasets/aegis --modes-data ../shared/datasets/mad-mast ../shared/datasets/aegis --out models/offline-model.json\n  faultline train --data ../shared/datasets/who-and-when ../shared/datasets/aegis --out /tmp/m.json --cv\n  faultline train --data my-labelled-runs/ --base --out my-model.json\n  faultline train --data ../shared/datasets/who-and-when ../shared/datasets/aegis --out /tmp/m.json --loso',
    )
    .action(async (flags: TrainFlags) => {
      const { runTrainCommand } = await import('./train-action.js');
      await runTrainCommand(flags, exit);
    });
}
