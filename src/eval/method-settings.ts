/**
 * What an evaluation's records are keyed by besides the trace: the name a method's results are
 * stored under, and the fingerprint of the settings that change its result.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isLlmMethod, type LlmOptions } from '../attribution/llm/catalog.js';
import { DEFAULT_MODEL_PATH } from '../attribution/offline/attribute/attributor.js';
import type { FoldPlan } from '../attribution/offline/train/folds.js';
import { SYSTEM_LAYER_VERSION } from '../attribution/offline/train/system-layer.js';
import { ModelFileError } from '../errors.js';
import {
  ADAPTED_OFFLINE,
  CROSS_VALIDATED_OFFLINE,
  LEAVE_ONE_SYSTEM_OUT,
  PAPER_PROMPTS_TAG,
} from './constants.js';
import { settingsFingerprint } from './result-store.js';
import type { EvalOptions } from './run-types.js';

/**
 * The name results are stored and reported under: LLM methods carry their model, and `paper
 * prompts` when they send the Who&When paper's (`all-at-once [openai:gpt-4o, paper prompts]`), so
 * those results are kept apart from faultline's; `extra` names the tolerant reading of them.
 */
export function methodKey(method: string, llm: LlmOptions | undefined, extra?: string): string {
  if (!isLlmMethod(method)) return method;
  const tags = [llm?.model, llm?.prompts === 'paper' ? PAPER_PROMPTS_TAG : undefined, extra].filter(
    (tag) => tag !== undefined,
  );
  return tags.length > 0 ? `${method} [${tags.join(', ')}]` : method;
}

/**
 * The fingerprint of everything besides the trace that changes a method's result: for LLM methods
 * the model, endpoint, context, call limit, temperature and prices; for `offline` the model file's
 * content; for the held-out methods the folds (their seeds are kept per record) and the labelled
 * runs they train on (`trainedOn`, a fingerprint of their content hashes: a run held out of another
 * set of runs is predicted by other models), and for `offline-adapted` the model it adapts.
 */
export function resultSettings(
  methodName: string,
  options: EvalOptions,
  plan: FoldPlan,
  trainedOn?: string,
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
  if (methodName === CROSS_VALIDATED_OFFLINE)
    return settingsFingerprint({ folds: plan.folds, data: trainedOn });
  if (methodName === LEAVE_ONE_SYSTEM_OUT) return settingsFingerprint({ data: trainedOn });
  if (methodName === ADAPTED_OFFLINE)
    return settingsFingerprint({
      folds: plan.folds,
      model: modelFileHash(options.modelPath ?? DEFAULT_MODEL_PATH),
      layer: SYSTEM_LAYER_VERSION,
      data: trainedOn,
    });
  return undefined;
}

/** The fingerprint of a set of runs, whatever their order: of their keys, sorted. */
export function runsFingerprint(keys: Iterable<string>): string | undefined {
  return settingsFingerprint({ runs: [...keys].sort() });
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
