/**
 * Runs methods over labelled traces, storing each result as it arrives and skipping what the
 * store already holds. `offline-cv` evaluates the offline model by cross-validation on the traces
 * themselves (folds grouped by question, over several fold seeds), the honest way to score it on
 * its own training data.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pLimit from 'p-limit';
import { isLlmMethod, namesModes, type LlmOptions } from '../attribution/llm/catalog.js';
import {
  DEFAULT_MODEL_PATH,
  loadOfflineModel,
} from '../attribution/offline/attribute/attributor.js';
import { isLabelled } from '../attribution/offline/features/inputs.js';
import { labelledModes } from '../attribution/offline/modes/mode-model.js';
import { getMethod } from '../attribution/registry.js';
import { ModelFileError, ProviderError, UserError } from '../errors.js';
import { namesAnAgent } from '../trace/agents.js';
import { traceHash } from '../trace/hash.js';
import type { Trace } from '../trace/model.js';
import { seedsOf, type FoldPlan } from '../attribution/offline/train/folds.js';
import {
  CROSS_VALIDATED_OFFLINE,
  HELD_OUT_METHODS,
  LEAVE_ONE_SYSTEM_OUT,
  PAPER_PROMPTS_TAG,
} from './constants.js';
import { crossValidationRecords, DEFAULT_FOLD_PLAN } from './cross-validate.js';
import { agentCorrect, stepCorrect } from './metrics.js';
import {
  recordKey,
  recordOf,
  settingsFingerprint,
  type EvalRecord,
  type ResultStore,
} from './result-store.js';

export { CROSS_VALIDATED_OFFLINE, LEAVE_ONE_SYSTEM_OUT } from './constants.js';

/** Progress after each trace. */
export interface EvalProgress {
  method: string;
  useGroundTruth: boolean;
  done: number;
  total: number;
  agentAccuracy: number;
  stepAccuracy: number;
  costUsd: number;
  resumed: number;
}

/** What to evaluate. */
export interface EvalOptions {
  methods: string[];
  groundTruthSettings: boolean[];
  /** Offline model file (the shipped one by default). */
  modelPath?: string;
  /** Keep the offline model's training traces in its evaluation. */
  includeTrain?: boolean;
  /** Model and call settings for LLM methods. */
  llm?: LlmOptions;
  /** Traces evaluated at once by LLM methods (default 1). */
  concurrency?: number;
  /** Folds and seeds of `offline-cv` and of the learned baselines (default: DEFAULT_FOLD_PLAN). */
  plan?: FoldPlan;
  onProgress?: (progress: EvalProgress) => void;
}

/**
 * The name results are stored and reported under: LLM methods carry their model, and `paper
 * prompts` when they send the Who&When paper's (`all-at-once [openai:gpt-4o, paper prompts]`), so
 * those results are kept apart from faultline's; `extra` names the tolerant reading of them.
 */
function methodKey(method: string, llm: LlmOptions | undefined, extra?: string): string {
  if (!isLlmMethod(method)) return method;
  const tags = [llm?.model, llm?.prompts === 'paper' ? PAPER_PROMPTS_TAG : undefined, extra].filter(
    (tag) => tag !== undefined,
  );
  return tags.length > 0 ? `${method} [${tags.join(', ')}]` : method;
}

/**
 * The fingerprint of everything besides the trace that changes a method's result: for LLM methods
 * the model, endpoint, context, call limit, temperature and prices; for `offline` the model file's
 * content; for the held-out methods the folds (their seeds are kept per record).
 */
function resultSettings(
  methodName: string,
  options: EvalOptions,
  plan: FoldPlan,
): string | undefined {
  if (isLlmMethod(methodName)) {
    const llm = options.llm ?? {};
    return settingsFingerprint({
      model: llm.model,
      baseUrl: llm.baseUrl,
      contextTokens: llm.contextTokens,
      maxCalls: llm.maxCalls,
      temperature: llm.temperature,
      prices: llm.prices,
      prompts: llm.prompts === 'paper' ? 'paper' : undefined,
    });
  }
  if (methodName === 'offline')
    return settingsFingerprint({ model: modelFileHash(options.modelPath ?? DEFAULT_MODEL_PATH) });
  if (methodName === CROSS_VALIDATED_OFFLINE) return settingsFingerprint({ folds: plan.folds });
  return undefined;
}

/** Content hash of a model file (its path may name another file next time). */
export function modelFileHash(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new ModelFileError(
      `${path}: cannot read the model file (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { cause: error },
    );
  }
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

/** What a run did besides its records. */
export interface EvalRunInfo {
  /** Traces left out of the `offline` method because the model was trained on them. */
  excludedTrainingTraces: number;
  includeTrain: boolean;
  /** Traces without usable labels, skipped. */
  unlabelled: number;
  /** Folds and seeds of cross-validated records and of the learned baselines. */
  plan: FoldPlan;
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

  for (const methodName of options.methods) {
    const method = methodKey(methodName, options.llm);
    // With the paper's prompts, the tolerant reading of the same replies is stored beside them.
    const lenientMethod =
      isLlmMethod(methodName) && options.llm?.prompts === 'paper'
        ? methodKey(methodName, options.llm, 'tolerant reading')
        : undefined;
    const settings = resultSettings(methodName, options, info.plan);
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
      let selected = pool.map((trace) => ({ trace, key: keyOf.get(trace)! }));
      if (methodName === 'offline' && !options.includeTrain) {
        const trained = new Set(loadOfflineModel(options.modelPath).training.traceHashes);
        const before = selected.length;
        selected = selected.filter((item) => !trained.has(item.key));
        info.excludedTrainingTraces = Math.max(
          info.excludedTrainingTraces,
          before - selected.length,
        );
      }
      const progress = {
        method,
        useGroundTruth,
        done: 0,
        total: selected.length,
        hitsAgent: 0,
        hitsStep: 0,
        stepped: 0,
        scored: 0,
        cost: 0,
        resumed: 0,
      };
      const progressOf = (): EvalProgress => ({
        method,
        useGroundTruth,
        done: progress.done,
        total: progress.total,
        agentAccuracy: progress.scored > 0 ? progress.hitsAgent / progress.scored : 0,
        stepAccuracy: progress.stepped > 0 ? progress.hitsStep / progress.stepped : 0,
        costUsd: progress.cost,
        resumed: progress.resumed,
      });
      const report = (record: EvalRecord, resumed: boolean) => {
        records.push(record);
        progress.done += 1;
        if (resumed) progress.resumed += 1;
        // Records of runs labelled with modes only count for the modes, not for accuracy.
        if (namesAnAgent(record.label)) {
          progress.scored += 1;
          if (agentCorrect(record.predicted.agent, record.label.agent, record.label.agents))
            progress.hitsAgent += 1;
        }
        if (record.label.step !== undefined) {
          progress.stepped += 1;
          progress.hitsStep += stepCorrect(record.predicted.step, record.label.step) ? 1 : 0;
        }
        progress.cost += record.usage.costUsd ?? 0;
        options.onProgress?.(progressOf());
      };
      if (attributor === undefined) {
        // One record per trace and seed; a seed missing any record is cross-validated again, with
        // folds drawn over all labelled traces so results do not depend on what was resumed.
        const plan: FoldPlan =
          methodName === LEAVE_ONE_SYSTEM_OUT ? { ...info.plan, by: 'system' } : info.plan;
        const seeds = seedsOf(plan);
        progress.total = selected.length * seeds.length;
        const missing = seeds.filter((foldSeed) => {
          const stored = selected.map((item) =>
            store.get(
              recordKey({
                method,
                useGroundTruth,
                traceKey: item.key,
                file: item.trace.source ?? item.trace.id,
                foldSeed,
                ...(settings ? { settings } : {}),
              }),
            ),
          );
          if (stored.every((record) => record !== undefined)) {
            for (const record of stored) report(record, true);
            return false;
          }
          return true;
        });
        if (missing.length === 0) continue;
        const wanted = new Set(selected.map((item) => item.key));
        for (const record of crossValidationRecords(labelled, {
          plan: { ...plan, seeds: missing },
          useGroundTruth,
        })) {
          if (!wanted.has(record.traceKey)) continue;
          const withSettings = settings ? { ...record, settings } : record;
          store.add(withSettings);
          report(withSettings, false);
        }
        continue;
      }
      const pending = selected.filter((item) => {
        const storedAs = (name: string) =>
          store.get(
            recordKey({
              method: name,
              useGroundTruth,
              traceKey: item.key,
              file: item.trace.source ?? item.trace.id,
              ...(settings ? { settings } : {}),
            }),
          );
        const stored = storedAs(method);
        const lenient = lenientMethod === undefined ? undefined : storedAs(lenientMethod);
        const complete = stored !== undefined && (lenientMethod === undefined || lenient);
        if (complete) report(stored, true);
        if (complete && lenient) records.push(lenient);
        return !complete;
      });
      if (pending.length === 0) continue;
      if (method === 'offline') loadOfflineModel(options.modelPath); // load once before timing
      const limit = pLimit(method === 'offline' ? 1 : (options.concurrency ?? 1));
      await Promise.all(
        pending.map((item) =>
          limit(async () => {
            const started = performance.now();
            const result = await attributor
              .attribute(item.trace, {
                useGroundTruth,
                ...(options.llm?.maxCalls ? { maxCalls: options.llm.maxCalls } : {}),
              })
              .catch((error: unknown) => {
                // A provider failure stops the run; the message says on which trace (the results
                // so far are stored, so a rerun continues from there).
                if (!(error instanceof ProviderError)) throw error;
                throw new ProviderError(
                  `${item.trace.source ?? item.trace.id}: ${method}: ${error.message}`,
                  {
                    ...(error.status === undefined ? {} : { status: error.status }),
                    retryable: error.retryable,
                    cause: error,
                  },
                );
              });
            const context = {
              method,
              useGroundTruth,
              trace: item.trace,
              traceKey: item.key,
              milliseconds: performance.now() - started,
              ...(settings ? { settings } : {}),
            };
            const record = recordOf(result, context);
            store.add(record);
            report(record, false);
            if (lenientMethod !== undefined && result.lenient) {
              const { agent, step, reason, unparsed } = result.lenient;
              const lenient = recordOf(
                { ...result, agent, step, reason, unparsed: unparsed === true },
                { ...context, method: lenientMethod },
              );
              store.add(lenient);
              records.push(lenient);
            }
          }),
        ),
      );
    }
  }
  return { records, info };
}
