/**
 * Runs methods over labelled traces, storing each result as it arrives and skipping what the
 * store already holds. `offline-cv` evaluates the offline model by cross-validation on the traces
 * themselves (folds grouped by question, over several fold seeds), the honest way to score it on
 * its own training data. The held-out methods' records come from run-held-out.ts, every other
 * method's from run-attributed.ts.
 */
import { isLlmMethod, namesModes } from '../attribution/llm/catalog.js';
import { loadOfflineModel } from '../attribution/offline/attribute/attributor.js';
import { isLabelled } from '../attribution/offline/features/inputs.js';
import { labelledModes } from '../attribution/offline/modes/mode-model.js';
import { getMethod, needsReference, needsRuns } from '../attribution/registry.js';
import { UserError } from '../errors.js';
import { traceHash } from '../trace/hash.js';
import type { Trace } from '../trace/model.js';
import { subsetOf } from '../trace/subset.js';
import { HELD_OUT_METHODS } from './constants.js';
import { DEFAULT_FOLD_PLAN } from './cross-validate.js';
import { methodKey, resultSettings, runsFingerprint } from './method-settings.js';
import type { EvalRecord, ResultStore } from './result-store.js';
import { evaluateAttributed } from './run-attributed.js';
import { evaluateHeldOut } from './run-held-out.js';
import { resolveReferences } from './references.js';
import { resolveSiblings } from './siblings.js';
import { ProgressCounter } from './run-progress.js';
import type { EvalOptions, EvalRunInfo, SelectedTrace } from './run-types.js';

export { CROSS_VALIDATED_OFFLINE, LEAVE_ONE_SYSTEM_OUT } from './constants.js';
export { modelFileHash } from './method-settings.js';
export type { EvalOptions, EvalProgress, EvalRunInfo } from './run-types.js';

/**
 * The traces a method that compares with a passing run can be scored on: those naming one found
 * among the traces read, each with it; an error when none does.
 */
function withReferences(
  methodName: string,
  selected: readonly SelectedTrace[],
  references: ReadonlyMap<Trace, Trace>,
): SelectedTrace[] {
  const kept = selected.flatMap((item) => {
    const reference = references.get(item.trace);
    return reference ? [{ ...item, reference }] : [];
  });
  if (kept.length === 0)
    throw new UserError(
      `the ${methodName} method compares each run with a passing run of the same task, and none of the ${selected.length} labelled runs names one found among the traces read (a run names it by id in its "reference" field, as faultline inject writes its runs); evaluate a folder that holds both, or leave ${methodName} out of --method`,
    );
  return kept;
}

/**
 * The traces a method that compares many runs of a task can be scored on: the labelled runs with
 * siblings in their task folder, each with them; an error when none has any.
 */
function withSiblings(
  methodName: string,
  selected: readonly SelectedTrace[],
  siblings: ReadonlyMap<Trace, Trace[]>,
): SelectedTrace[] {
  const kept = selected.flatMap((item) => {
    const runs = siblings.get(item.trace);
    return runs ? [{ ...item, runs }] : [];
  });
  if (kept.length === 0)
    throw new UserError(
      `the ${methodName} method compares each failed run with other runs of its task, and none of the ${selected.length} labelled runs has any: put each task's runs in a folder of their own (ROOT/TASK/*.json: the labelled failed run and its repeats, each with its outcome; docs/EVAL.md), or leave ${methodName} out of --method`,
    );
  return kept;
}

/** Evaluates every method and setting; returns the records of this run (stored or new). */
export async function runEvaluation(
  traces: readonly Trace[],
  store: ResultStore,
  options: EvalOptions,
): Promise<{ records: EvalRecord[]; info: EvalRunInfo }> {
  const labelled = traces.filter(isLabelled);
  // Methods that name failure modes also run on runs labelled with modes only (MAD): those
  // records score modes, not agents or steps.
  const modesOnly = traces.filter(
    (trace) => !isLabelled(trace) && labelledModes(trace) !== undefined,
  );
  const keyOf = new Map([...labelled, ...modesOnly].map((trace) => [trace, traceHash(trace)]));
  const info: EvalRunInfo = {
    excludedTrainingTraces: 0,
    includeTrain: Boolean(options.includeTrain),
    unlabelled: traces.length - labelled.length,
    plan: options.plan ?? DEFAULT_FOLD_PLAN,
  };
  if (labelled.length === 0 && modesOnly.length === 0)
    throw new UserError(
      'none of the traces names its responsible agent or its MAST failure modes; evaluation needs labelled traces (e.g. Who&When, AEGIS or MAD with MAST labels)',
    );
  const records: EvalRecord[] = [];
  const references = resolveReferences(traces);
  const siblings = options.methods.some(needsRuns) ? resolveSiblings(traces) : new Map();
  // The held-out methods train on every labelled run (its steps, labels, question and system, by
  // which folds are drawn): their records hold for this set alone.
  const trainedOn = options.methods.some((name) => HELD_OUT_METHODS.includes(name))
    ? runsFingerprint(
        labelled.map(
          (trace) =>
            `${keyOf.get(trace)!} ${JSON.stringify([trace.labels, trace.question, subsetOf(trace)])}`,
        ),
      )
    : undefined;

  for (const methodName of options.methods) {
    const method = methodKey(methodName, options.llm);
    // With the paper's prompts, the tolerant reading of the same replies is stored beside them.
    const lenientMethod =
      isLlmMethod(methodName) && options.llm?.prompts === 'paper'
        ? methodKey(methodName, options.llm, 'tolerant reading')
        : undefined;
    const settings = resultSettings(methodName, options, info.plan, trainedOn);
    // Created once per method: a missing model or key fails before any trace is evaluated.
    const attributor = HELD_OUT_METHODS.includes(methodName)
      ? undefined
      : getMethod(methodName, {
          ...(options.modelPath ? { modelPath: options.modelPath } : {}),
          ...(options.llm ? { llm: options.llm } : {}),
        });
    for (const useGroundTruth of options.groundTruthSettings) {
      const pool = namesModes(methodName, options.llm?.prompts)
        ? [...labelled, ...modesOnly]
        : labelled;
      let selected: SelectedTrace[] = pool.map((trace) => ({ trace, key: keyOf.get(trace)! }));
      if (needsReference(methodName)) selected = withReferences(methodName, selected, references);
      if (needsRuns(methodName)) selected = withSiblings(methodName, selected, siblings);
      if (methodName === 'offline' && !options.includeTrain) {
        const trained = new Set(loadOfflineModel(options.modelPath).training.traceHashes);
        const before = selected.length;
        selected = selected.filter((item) => !trained.has(item.key));
        info.excludedTrainingTraces = Math.max(
          info.excludedTrainingTraces,
          before - selected.length,
        );
      }
      const counter = new ProgressCounter(
        method,
        useGroundTruth,
        selected.length,
        records,
        options.onProgress,
      );
      const run = {
        methodName,
        method,
        useGroundTruth,
        settings,
        selected,
        store,
        counter,
        records,
      };
      if (attributor === undefined) evaluateHeldOut(run, labelled, info.plan, options.modelPath);
      else await evaluateAttributed(run, attributor, lenientMethod, options);
    }
  }
  return { records, info };
}
