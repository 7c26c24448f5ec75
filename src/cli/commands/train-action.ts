/**
 * The work of `faultline train`: fit (on the base data too with --base), calibrate, write the model
 * file, and with --cv / --loso print the model card's tables.
 */
import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { hasStepLabel, isLabelled } from '../../attribution/offline/features/inputs.js';
import { loadOfflineModel } from '../../attribution/offline/attribute/attributor.js';
import { labelledModes } from '../../attribution/offline/modes/mode-model.js';
import type { TrainSettings } from '../../attribution/offline/model/settings.js';
import { MIN_MODE_RUNS, trainModelFile } from '../../attribution/offline/train/train-model-file.js';
import { adaptModel, chooseSystemLayer } from '../../attribution/offline/train/system-layer.js';
import type { OfflineModel } from '../../attribution/offline/model/model-file.js';
import { systemLine } from './system-line.js';
import { UserError } from '../../errors.js';
import { crossValidationRecords } from '../../eval/cross-validate.js';
import { foldCount, seedsOf, type FoldPlan } from '../../attribution/offline/train/folds.js';
import { terminalReport } from '../../eval/report-markdown.js';
import { summariseEvaluation } from '../../eval/summary.js';
import { traceHash } from '../../trace/hash.js';
import { shownPaths } from '../../trace/load.js';
import type { Trace } from '../../trace/model.js';
import { forEachTrace, finishBatch, type BatchOutcome } from '../batch.js';
import { nonNegativeNumber } from '../flag-values.js';
import { foldPlanOf } from '../fold-options.js';
import { outOf, refuseFitFlags, settingsOf, type TrainFlags } from './train-flags.js';
import { terminalSafe } from '../terminal-text.js';

/**
 * The runs the failure-mode classifiers learn from: those of --modes-data and any others labelled
 * with modes (per agent too, from the runs that label faults per agent), each run once.
 */
async function modeRunsOf(
  flags: TrainFlags,
  others: readonly Trace[],
): Promise<{ runs: Trace[]; data: string[]; outcome: BatchOutcome }> {
  // The runs of --modes-data, then the other labelled runs; a run given both ways counts once.
  const labelled: Trace[] = [];
  const seen = new Set<string>();
  const add = (trace: Trace) => {
    const hash = traceHash(trace);
    if (!labelledModes(trace) || seen.has(hash)) return;
    seen.add(hash);
    labelled.push(trace);
  };
  const outcome = flags.modesData
    ? await forEachTrace(flags.modesData, {}, add)
    : { files: 0, traces: 0, failedFiles: 0 };
  others.forEach(add);
  if (flags.modesData && labelled.length < MIN_MODE_RUNS)
    throw new UserError(
      `--modes-data: need at least ${MIN_MODE_RUNS} runs labelled with MAST modes (a \`mast\` map, \`labels.modes\` or injected faults); found ${labelled.length} in ${shownPaths(flags.modesData)}`,
    );
  const data = (flags.modesData ?? []).map((path) => relative(process.cwd(), path) || '.');
  return { runs: labelled, data, outcome };
}

/**
 * Prints the cross-validated table of `--cv` / `--loso`: the same records, baselines and table as
 * `faultline eval --method offline-cv,offline-loso --both`.
 */
function printCrossValidation(
  usable: readonly Trace[],
  plans: readonly FoldPlan[],
  settings: TrainSettings,
  weightOf: ((trace: Trace) => number) | undefined,
  unlabelled: number,
): void {
  const total = plans.reduce(
    (sum, plan) => sum + foldCount(usable, plan) * seedsOf(plan).length * 2,
    0,
  );
  let done = 0;
  const onFold = () =>
    process.stderr.isTTY &&
    process.stderr.write(`\rcross-validating: fold ${(done += 1)}/${total}`);
  const records = plans.flatMap((plan) =>
    [true, false].flatMap((useGroundTruth) =>
      crossValidationRecords(usable, {
        plan,
        settings,
        useGroundTruth,
        onFold,
        ...(weightOf ? { weightOf } : {}),
      }),
    ),
  );
  if (process.stderr.isTTY) process.stderr.write('\n');
  const summary = summariseEvaluation(records, usable, {
    excludedTrainingTraces: 0,
    includeTrain: false,
    unlabelled,
    plan: plans[0]!,
  });
  process.stdout.write(terminalReport(terminalSafe(summary)));
}

/** The `train` command's work, loaded only when the command runs. */
export async function runTrainCommand(
  flags: TrainFlags,
  exit: (code: number) => void,
): Promise<void> {
  const settings = settingsOf(flags);
  const questionPlan = foldPlanOf(flags);
  const plans: FoldPlan[] = [
    ...(flags.cv ? [questionPlan] : []),
    ...(flags.loso ? [{ ...questionPlan, by: 'system' as const }] : []),
  ];
  const userWeight = nonNegativeNumber(flags.userWeight, '--user-weight');
  if (flags.base === true) {
    if (plans.length > 0)
      throw new UserError(
        '--cv and --loso refit the model; with --base alone it is adapted, not refitted: measure it with `faultline eval MY_RUNS --method offline,offline-adapted`',
      );
    refuseFitFlags(flags);
    await adaptShippedModel(flags, exit);
    return;
  }
  const baseFolders = flags.base ?? [];
  const traces: Trace[] = [];
  const outcome = await forEachTrace(flags.data, {}, (trace) => {
    traces.push(trace);
  });
  const own = traces.filter(isLabelled);
  if (own.length < (baseFolders.length > 0 ? 1 : 2))
    throw new UserError(
      `need at least ${baseFolders.length > 0 ? 1 : 2} labelled trace${baseFolders.length > 0 ? '' : 's'} (naming the responsible agent, and the decisive step where known); found ${own.length} in ${shownPaths(flags.data)}${traces.length > own.length ? ` (${traces.length - own.length} without labels)` : ''}`,
    );
  const base: Trace[] = [];
  const baseOutcome =
    baseFolders.length > 0
      ? await forEachTrace(baseFolders, {}, (trace) => {
          if (isLabelled(trace)) base.push(trace);
        })
      : { files: 0, traces: 0, failedFiles: 0 };
  if (baseFolders.length > 0 && base.length === 0)
    throw new UserError(
      `--base: no labelled run could be read from ${baseFolders.join(', ')}; nothing was trained`,
    );
  const modeRuns = await modeRunsOf(flags, [...base, ...traces]);
  const mine = new Set(own);
  const usable = [...base, ...own];
  const weightOf =
    base.length > 0 ? (trace: Trace) => (mine.has(trace) ? userWeight : 1) : undefined;
  const data = [...baseFolders, ...flags.data].map((path) => relative(process.cwd(), path) || '.');
  // With --base and too few mode-labelled runs, the shipped model's classifiers are kept.
  const keep =
    flags.base !== undefined && modeRuns.runs.length < MIN_MODE_RUNS
      ? loadOfflineModel()
      : undefined;
  const model = trainModelFile(usable, {
    settings,
    data,
    modes: { runs: modeRuns.runs, data: modeRuns.data },
    ...(weightOf ? { weightOf } : {}),
    ...(keep ? { keep } : {}),
    onPart: (part, runs) => {
      if (part === 'modes')
        process.stderr.write(`training the failure-mode classifier on ${runs} runs…\n`);
      if (part === 'agent-modes')
        process.stderr.write(`training the per-agent classifier on ${runs} runs…\n`);
    },
  });
  const reused = modeRuns.runs.length < MIN_MODE_RUNS && model.modes !== undefined;
  // Adapting to a system: a prior over its agents' names on top of the refitted model, or the
  // record alone, or the model alone, chosen by leaving each of the user's runs out in turn.
  const system = base.length > 0 ? chooseSystemLayer(model, own) : undefined;
  await writeModel(outOf(flags), system ? { ...model, system } : model);
  if (system) process.stderr.write(`${systemLine(system)}\n`);
  const withSteps = usable.filter(hasStepLabel).length;
  process.stderr.write(
    `trained on ${usable.length} labelled traces${base.length > 0 ? ` (${base.length} base, ${own.length} yours counting ${userWeight}× each)` : ''}, ${withSteps} with a step label (${traces.length - own.length} without labels skipped); wrote ${outOf(flags)}\n`,
  );
  process.stderr.write(
    model.modes
      ? `failure modes: learned ${model.modes.modes.length} MAST modes from ${model.modes.training.traces} labelled runs${model.agentModes ? `, per agent from ${model.agentModes.training.traces} agents` : ''}${reused ? ' (kept from the shipped model)' : ''}\n`
      : 'faultline: warning: no run is labelled with MAST failure modes, so the model names none (add --modes-data)\n',
  );
  if (withSteps === 0)
    process.stderr.write(
      'faultline: warning: no trace labels its decisive step, so the step scorer learned nothing and steps are ranked by the agent scorer alone\n',
    );
  if (plans.length > 0)
    printCrossValidation(usable, plans, settings, weightOf, traces.length - own.length);
  exit(
    finishBatch({
      files: outcome.files + baseOutcome.files + modeRuns.outcome.files,
      traces: outcome.traces + baseOutcome.traces + modeRuns.outcome.traces,
      failedFiles: outcome.failedFiles + baseOutcome.failedFiles + modeRuns.outcome.failedFiles,
    }),
  );
}

/** Writes a model file, or says plainly why it cannot. */
async function writeModel(out: string, model: OfflineModel): Promise<void> {
  await writeFile(out, `${JSON.stringify(model, null, 1)}\n`).catch((error: unknown) => {
    throw new UserError(
      `${out}: cannot write the model (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { cause: error },
    );
  });
}

/**
 * `train --base` alone: the shipped model, as it is, adapted to the runs of --data (its system
 * layer). Needs nothing but the package: no base data is read and nothing is refitted.
 */
async function adaptShippedModel(flags: TrainFlags, exit: (code: number) => void): Promise<void> {
  const traces: Trace[] = [];
  const outcome = await forEachTrace(flags.data, {}, (trace) => {
    traces.push(trace);
  });
  const own = traces.filter(isLabelled);
  if (own.length === 0)
    throw new UserError(
      `--base: need at least one labelled run of your system (naming the responsible agent); found none in ${shownPaths(flags.data)}${traces.length > 0 ? ` (${traces.length} without labels)` : ''}`,
    );
  const data = flags.data.map((path) => relative(process.cwd(), path) || '.');
  const adapted = adaptModel(loadOfflineModel(), own, data);
  const out = outOf(flags);
  await writeModel(out, adapted);
  process.stderr.write(
    `${systemLine(adapted.system!)}\nthe shipped model's scorers, calibration and failure-mode classifiers are kept (\`--base DIR...\` refits them on those folders and your runs); wrote ${out}\n`,
  );
  exit(finishBatch(outcome));
}
