/**
 * The cross-validation flags shared by `train --cv` and `eval --method offline-cv`, so both draw
 * the same folds for the same flags and print the same figures.
 */
import type { Command } from 'commander';
import { DEFAULT_FOLD_SEEDS } from '../attribution/offline/model/settings.js';
import type { FoldPlan } from '../eval/baselines.js';
import { UserError } from '../errors.js';
import { wholeNumber } from './flag-values.js';

/** The raw flags as commander parses them. */
export interface FoldFlags {
  folds: string;
  seeds: string;
}

/** Adds `--folds` and `--seeds` to a command. */
export function addFoldOptions(command: Command): Command {
  return command
    .option('--folds <k>', 'cross-validation folds, grouped by question', '5')
    .option(
      '--seeds <list>',
      'comma-separated fold seeds, each a full k-fold run',
      DEFAULT_FOLD_SEEDS.join(','),
    );
}

/** The fold plan of parsed flags, or a UserError naming the bad flag. */
export function foldPlanOf(flags: FoldFlags): FoldPlan {
  const seeds = flags.seeds
    .split(',')
    .map((seed) => seed.trim())
    .filter((seed) => seed.length > 0)
    .map((seed) => wholeNumber(seed, '--seeds', 0));
  if (seeds.length === 0) throw new UserError('--seeds needs at least one whole number');
  return { folds: wholeNumber(flags.folds, '--folds', 2), seeds: [...new Set(seeds)] };
}
