/**
 * `faultline eval <folder or trace>...`: benchmark methods on labelled traces, next to baselines,
 * with intervals; results are stored as they arrive so runs resume and re-report without calls.
 */
import type { Command } from 'commander';
import { listMethods } from '../../attribution/registry.js';
import {
  CROSS_VALIDATED_OFFLINE,
  ADAPTED_OFFLINE,
  HELD_OUT_METHODS,
  LEAVE_ONE_SYSTEM_OUT,
} from '../../eval/constants.js';
import { addFoldOptions } from '../fold-options.js';
import { addLlmOptions } from '../llm-options.js';
import type { EvalFlags } from './eval-action.js';

export function registerEval(program: Command, exit: (code: number) => void): void {
  const command = program
    .command('eval')
    .description('measure methods on labelled traces against baselines, with confidence intervals')
    .argument('<traces...>', 'labelled trace files or folders (e.g. a Who&When checkout)')
    .option(
      '-m, --method <list>',
      `comma-separated methods: ${[...listMethods().map((method) => method.name), ...HELD_OUT_METHODS].join(', ')}`,
      'offline',
    )
    .option('--model-file <path>', 'offline model file (default: the shipped model)')
    .option('--no-ground-truth', "don't give methods the task's expected answer")
    .option(
      '--both',
      'evaluate every method with and without the expected answer (the paper layout)',
    )
    .option('-o, --out <files...>', 'write reports: .html, .md and/or .json')
    .option(
      '--store <file>',
      'results file to resume from and append to (default: in FAULTLINE_HOME)',
    )
    .option('--fresh', 'ignore results stored by earlier runs')
    .option(
      '--include-train',
      'also score the offline model on its own training traces (optimistic)',
    )
    .option('--format <name>', 'read as this format instead of detecting it')
    .option('--concurrency <n>', 'traces evaluated at once by LLM methods', '4');
  addFoldOptions(addLlmOptions(command))
    .addHelpText(
      'after',
      `\nExamples:\n  faultline eval ../shared/datasets/who-and-when --method ${CROSS_VALIDATED_OFFLINE},first-agent --both -o report.html report.md\n  faultline eval labelled-runs/ --method offline -o report.json\n\nThe offline model's training traces are left out of its evaluation (matched by content hash);\n${CROSS_VALIDATED_OFFLINE} scores it by cross-validation grouped by question instead (--folds, --seeds:\nthe same flags and figures as \`faultline train --cv\`), and ${LEAVE_ONE_SYSTEM_OUT} predicts each system\n(subset or folder) with a model trained on the others (as \`faultline train --loso\`);
${ADAPTED_OFFLINE} adapts the offline model to each system's runs in the other folds (as
\`faultline train --base\` does), added by itself on runs with injected faults.`,
    )
    .action(async (paths: string[], flags: EvalFlags) => {
      const { runEvalCommand } = await import('./eval-action.js');
      await runEvalCommand(paths, flags, exit);
    });
}
