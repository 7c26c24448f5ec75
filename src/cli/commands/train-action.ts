/**
 * The work of `faultline train`: fit, write the model file, and with --cv print the model card table.
 */
import { hasStepLabel, isLabelled } from '../../attribution/offline/inputs.js';
import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { DEFAULT_TRAIN_SETTINGS, trainOfflineModel } from '../../attribution/offline/train.js';
import { UserError } from '../../errors.js';
import { crossValidationRecords } from '../../eval/cross-validate.js';
import { terminalReport } from '../../eval/report-markdown.js';
import { summariseEvaluation } from '../../eval/summary.js';
import type { Trace } from '../../trace/model.js';
import { forEachTrace, finishBatch } from '../batch.js';
import { nonNegativeNumber, share } from '../flag-values.js';
import { foldPlanOf, type FoldFlags } from '../fold-options.js';
import { foldCount, seedsOf, type FoldPlan } from '../../eval/folds.js';

export interface TrainFlags extends FoldFlags {
  data: string[];
  out: string;
  cv?: boolean;
  loso?: boolean;
  stepL2: string;
  agentL2: string;
  agentWeight: string;
  earliestShare: string;
}

/** The `train` command's work, loaded only when the command runs. */
export async function runTrainCommand(
  flags: TrainFlags,
  exit: (code: number) => void,
): Promise<void> {
  const settings = {
    ...DEFAULT_TRAIN_SETTINGS,
    stepL2: nonNegativeNumber(flags.stepL2, '--step-l2'),
    agentL2: nonNegativeNumber(flags.agentL2, '--agent-l2'),
    agentWeight: nonNegativeNumber(flags.agentWeight, '--agent-weight'),
    earliestShare: share(flags.earliestShare, '--earliest-share', { aboveZero: true }),
  };
  const questionPlan = foldPlanOf(flags);
  const plans: FoldPlan[] = [
    ...(flags.cv ? [questionPlan] : []),
    ...(flags.loso ? [{ ...questionPlan, by: 'system' as const }] : []),
  ];
  const traces: Trace[] = [];
  const outcome = await forEachTrace(flags.data, {}, (trace) => {
    traces.push(trace);
  });
  const usable = traces.filter(isLabelled);
  if (usable.length < 2)
    throw new UserError(
      `need at least 2 labelled traces (naming the responsible agent, and the decisive step where known); found ${usable.length} in ${flags.data.join(', ')}`,
    );
  const data = flags.data.map((path) => relative(process.cwd(), path) || '.');
  const model = trainOfflineModel(usable, settings, data);
  await writeFile(flags.out, `${JSON.stringify(model, null, 1)}\n`).catch((error: unknown) => {
    throw new UserError(
      `${flags.out}: cannot write the model (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { cause: error },
    );
  });
  const withSteps = usable.filter(hasStepLabel).length;
  process.stderr.write(
    `trained on ${usable.length} labelled traces, ${withSteps} with a step label (${traces.length - usable.length} without labels skipped); wrote ${flags.out}\n`,
  );
  if (withSteps === 0)
    process.stderr.write(
      'faultline: warning: no trace labels its decisive step, so the step scorer learned nothing and steps are ranked by the agent scorer alone\n',
    );
  if (plans.length > 0) {
    // The same records, baselines and table as `faultline eval --method offline-cv,offline-loso --both`.
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
        crossValidationRecords(usable, { plan, settings, useGroundTruth, onFold }),
      ),
    );
    if (process.stderr.isTTY) process.stderr.write('\n');
    const summary = summariseEvaluation(records, usable, {
      excludedTrainingTraces: 0,
      includeTrain: false,
      unlabelled: traces.length - usable.length,
      plan: plans[0]!,
    });
    process.stdout.write(terminalReport(summary));
  }
  exit(finishBatch(outcome));
}
